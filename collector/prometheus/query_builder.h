#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"

// PromQL for the collector. Every user-supplied value reaches the query only through
// quote_promql_string (label values, regexes) or after validation (label and metric names, the
// range comes pre-validated as a PromDuration), so no configured value can change the structure
// of the query. Pure functions: thread-safe.
namespace netscore::collector {

class QueryError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The label that tells the two halves of the batched answer apart, and its values.
inline constexpr std::string_view kKindLabel = "netscore_kind";
inline constexpr std::string_view kKindScore = "score";
inline constexpr std::string_view kKindRate = "rate";
// Label mode with several candidate node labels: the label the answer carries the node name in.
inline constexpr std::string_view kCandidateNodeLabel = "netscore_node";

struct BuiltQuery {
  std::string promql;
  std::string node_label;  // the result label that carries the node name
  // Series labelled kKindLabel="score" carry the scored value, "rate" the average receive rate
  // in bytes/s. Empty when every series is a score series that is itself the rate
  // (NETSCORE_QUERY_FUNCTION=rate).
  std::string kind_label;
  bool score_is_rate = false;
};

// A double-quoted PromQL string literal whose unquoted value is exactly `value` (Go escapes:
// backslash, quote, newline, carriage return, tab, other control bytes as \xHH).
std::string quote_promql_string(std::string_view value);

// The one query of a refresh: per node one score series and one rate series, labelled by
// BuiltQuery::node_label and told apart by BuiltQuery::kind_label.
// Throws QueryError naming the offending setting.
BuiltQuery build_batch_query(const QueryConfig& config);

// What the original Go plugin asked per node (label and uname modes; label mode matches
// config.node_label), used to prove that the batch query gives every node the same value, and by
// the benchmark.
std::string build_per_node_query(const QueryConfig& config, std::string_view node);

}  // namespace netscore::collector
