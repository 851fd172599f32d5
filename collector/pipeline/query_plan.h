#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/prometheus/prometheus_api.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/model/inputs.h"

// What the refresh's query reads, and what it no longer asks on every refresh. Rates change
// from one refresh to the next; the node-label layout, the recording rules and the link speeds
// change rarely, so each is asked in a request of its own, off the refresh's query, when due:
// first use, every recheck interval (forty refresh intervals), and at once when an answer
// contradicts what was found (a duplicate series where one per node was found, series without
// the label found, the rules' series gone, a node without a cached speed). Then the refresh
// asks again in the same measurement, so what is published is what the one-query form would
// give. What is due when is read off an injected monotonic clock. Not thread-safe: the measuring
// thread owns it.
namespace netscore::collector {

// How the refresh's query read Prometheus, the requests asked off it in one measurement and since
// start, and when the link speeds used were asked: what a measurement reports of the plan.
struct PlanReport {
  std::string path{};                    // QueryPlan::describe()
  std::uint32_t asked_apart = 0;         // in this measurement
  std::uint64_t asked_apart_total = 0;   // since start
  std::uint64_t failed_total = 0;        // of those, without a usable answer
  std::int64_t speeds_eval_time_ms = 0;  // Unix ms; 0: none
};

class QueryPlan {
 public:
  // Requests made off the refresh's query, since start.
  struct Counts {
    std::uint64_t layout_checks = 0;
    std::uint64_t rule_checks = 0;
    std::uint64_t speed_queries = 0;
    std::uint64_t failed = 0;  // of those, without a usable answer
    std::uint64_t total() const { return layout_checks + rule_checks + speed_queries; }
  };

  // The requests asked apart that are due on the clock, decided once at a refresh's start. An
  // answer that contradicts the plan adds a check within the refresh (reconsider), and a node the
  // speed cache does not know adds the speeds (attach_speeds).
  struct Due {
    bool layout = false;
    bool rules = false;
    bool speeds = false;
  };

  QueryPlan(const QueryConfig& config, std::chrono::milliseconds recheck,
            MonoClockMs clock = mono_now_ms);

  Due due() const;
  // Before the refresh's query: the layout and the rules, when due.
  void prepare(const Due& due, PrometheusApi& api, std::int64_t eval_time_ms);
  // After it: true when the answer contradicts the shape and the batch changed (ask again).
  bool reconsider(const ParsedVector& answer, PrometheusApi& api, std::int64_t eval_time_ms);
  // Gives each sample its node's link speed from the cache, asked first when due or when a node
  // is not in it. Empty on success; the error when no speeds are known at all.
  std::string attach_speeds(const Due& due, std::vector<model::NodeSample>& samples,
                            PrometheusApi& api, std::int64_t eval_time_ms);

  const BuiltQuery& batch() const { return batch_; }
  const QueryShape& shape() const { return shape_; }
  const Counts& counts() const { return counts_; }
  // One line: the node label and how it was found, per series or summed, rules or counters.
  std::string describe() const;
  // The plan as it stands, with the requests asked apart since the total was `asked_before`.
  PlanReport report(std::uint64_t asked_before) const;

 private:
  struct Speed {
    double speed = 0;
    std::uint32_t unusable = 0;
  };

  bool resolves_layout() const;
  bool may_use_rules() const;
  void check_layout(PrometheusApi& api, std::int64_t eval_time_ms);
  void check_rules(PrometheusApi& api, std::int64_t eval_time_ms);
  bool ask_speeds(const std::vector<model::NodeSample>& samples, PrometheusApi& api,
                  std::int64_t eval_time_ms);
  void rebuild();

  const QueryConfig config_;
  const std::int64_t recheck_ms_;
  const MonoClockMs clock_;
  QueryShape shape_;
  BuiltQuery batch_;
  Counts counts_;
  std::int64_t next_layout_ms_ = 0;
  std::int64_t next_rules_ms_ = 0;
  std::int64_t next_speeds_ms_ = 0;
  bool layout_known_ = false;  // a layout check answered
  std::unordered_map<std::string, Speed> speeds_;
  std::int64_t speeds_eval_ms_ = 0;
};

}  // namespace netscore::collector
