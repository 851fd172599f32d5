#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/decision_log.h"
#include "extender/protocol.h"
#include "extender/scoring_policy.h"

// Recording the scheduler-facing answers into the DecisionLog, and GET /explain reading them back.
// Recording allocates nothing; the rendering functions allocate freely (not the scheduler's
// path). Thread-safe: the log is.
namespace netscore::extender {

// `percent`: score_nodes's 0..100 per node (-1: neutral). `unfiltered`: the filter's failures, in
// index order, of a pod whose constraints no filter call enforced (answered 0; see Handlers).
void record_prioritize(DecisionLog& log, const ExtenderConfig& config, const ExtenderArgs& args,
                       const Lookup& lookup, std::span<const NodeScore> found,
                       std::span<const std::int64_t> scores, std::span<const std::int16_t> percent,
                       std::span<const FailedNode> unfiltered) noexcept;

void record_filter(DecisionLog& log, const ExtenderArgs& args, const Lookup& lookup,
                   std::span<const NodeScore> found, std::span<const std::size_t> passed,
                   std::span<const FailedNode> failed) noexcept;

struct ExplainQuery {
  std::string pod_namespace;
  std::string pod_name;
  std::string uid;
  bool as_text = false;
  std::size_t limit = 10;
};

inline constexpr std::size_t kMaxExplainLimit = 100;

// Parses "pod=NAMESPACE/NAME" or "uid=UID", optional "format=text" and "limit=N" (1..100),
// percent-decoded. Returns an error message for anything else.
std::optional<std::string> parse_explain_query(std::string_view query, ExplainQuery& out);

std::string render_explain_json(const ExplainQuery& query, std::span<const Decision> decisions);
std::string render_explain_text(const ExplainQuery& query, std::span<const Decision> decisions);

}  // namespace netscore::extender
