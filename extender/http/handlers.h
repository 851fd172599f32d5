#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/beast/http/verb.hpp>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/http/request_metrics.h"
#include "extender/http/routes.h"
#include "extender/scheduler/decision_log.h"
#include "extender/scheduler/filter.h"
#include "extender/views/missing_nodes.h"
#include "extender/scheduler/burst_spread.h"
#include "extender/scheduler/table_state.h"

namespace netscore::extender {

struct Response {
  unsigned status = 200;
  std::string_view content_type = "application/json";
  std::string body;
  Verb verb = Verb::other;
  std::string_view allow;  // set with 405
};

// State every server thread shares; every member is thread-safe.
struct SharedState {
  explicit SharedState(unsigned threads, std::uint32_t explain_decisions = 0,
                       std::uint32_t explain_nodes = 0)
      : metrics(threads), decisions(explain_decisions, explain_nodes) {}
  ServerMetrics metrics;
  DecisionLog decisions;
  MissingNodes missing;
  BurstSpread spread;
  TableStateLog table_state;
  std::atomic<bool> draining{false};
  // Whether kube-scheduler calls the filter verb at all (the shipped configurations score only).
  std::atomic<bool> filter_served{false};
  // Prioritize requests for pods with filter constraints while no filter call was ever served.
  std::atomic<std::uint64_t> constraints_without_filter{0};
};

// The HTTP endpoints as pure functions of (method, target, body) plus the table and the clock, so
// they are tested without sockets. One instance per server thread: not thread-safe itself, but
// it only touches SharedState through its thread-safe members.
class Handlers {
 public:
  // read_only: the NETSCORE_METRICS_LISTEN listener, answering only the routes marked for it
  // (kRoutes).
  Handlers(const Config& config, SharedState& shared, unsigned thread, bool read_only = false)
      : config_(config), shared_(shared), thread_(thread), read_only_(read_only), filter_(config) {}

  // `body` is parsed in place (overwritten). `accept` is the request's Accept header.
  Response handle(boost::beast::http::verb method, std::string_view target, std::string& body,
                  const TableAttachment& table, std::int64_t now_mono_ns,
                  std::string_view accept = {});

 private:
  Response filter(std::string& body, const ScoreTableReader* table, std::int64_t now_mono_ns);
  Response prioritize(std::string& body, const ScoreTableReader* table, std::int64_t now_mono_ns);
  Response readyz(std::string_view query, const TableAttachment& table,
                  std::int64_t now_mono_ns) const;
  Response metrics(const ScoreTableReader* table, std::int64_t now_mono_ns) const;
  Response table(std::string_view query, std::string_view accept, const TableAttachment& table,
                 std::int64_t now_mono_ns) const;
  Response explain(std::string_view query, const ScoreTableReader* table) const;
  // With prioritize's own lookup: the filter reads the same snapshot, not the table again.
  void score_unfiltered_constraints(const ExtenderArgs& args, const Lookup& lookup,
                                    std::span<const NodeScore> found,
                                    std::span<std::int64_t> scores, FilterOutcome& outcome);
  void note_missing(std::span<const std::string_view> names, std::span<const NodeScore> scores);

  const Config& config_;
  SharedState& shared_;
  unsigned thread_;
  bool read_only_;
  Filter filter_;
};

}  // namespace netscore::extender
