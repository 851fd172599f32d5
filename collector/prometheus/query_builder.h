#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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

// The label that tells the parts of the batched answer apart, and its values. Every part is one
// series per node under BuiltQuery::node_label.
inline constexpr std::string_view kKindLabel = "netscore_kind";
inline constexpr std::string_view kKindScore = "score";  // the configured function (receive)
inline constexpr std::string_view kKindRate = "rate";    // receive bytes/s over the window
// The configured function over the transmit counter (the raw value in a transmit or max
// direction; with the rate function the transmit rate stands for it).
inline constexpr std::string_view kKindTransmitScore = "transmit_score";
inline constexpr std::string_view kKindTransmitRate = "transmit_rate";  // transmit bytes/s
// Sum of the matched devices' link speeds that are positive, in bytes/s.
inline constexpr std::string_view kKindSpeed = "speed";
// Number of matched devices whose speed series is not positive (node-exporter's -1).
inline constexpr std::string_view kKindUnusableSpeed = "unusable_speed";
// Label mode with several candidate node labels: the label the answer carries the node name in.
inline constexpr std::string_view kCandidateNodeLabel = "netscore_node";

struct BuiltQuery {
  // The receive direction's parts; every part when transmit_promql is empty.
  std::string promql{};
  std::string node_label{};  // the result label that carries the node name
  std::string kind_label{};  // kKindLabel (or __name__): which part of the answer a series is
  // NETSCORE_QUERY_FUNCTION=rate: the score parts are the rates, which the answer holds once.
  bool score_is_rate = false;
  // Values of kind_label that stand for a kKind* (a recording rule's name for its part).
  std::vector<std::pair<std::string, std::string_view>> kind_aliases{};
  // The transmit direction's parts: a request of its own, evaluated at the same time as
  // `promql`. Its series without the kind label are `transmit_untagged`. Empty: none.
  std::string transmit_promql{};
  std::string_view transmit_untagged{};
};

// What the refresh's query may rely on, as found by the queries asked off its path
// (side_queries.h); the default is what the configuration alone says.
struct QueryShape {
  // Label mode: the one label of NETSCORE_NODE_LABEL's list that the series carry; empty: each
  // series' first present candidate (a label_replace chain).
  std::string node_label{};
  // Every node has at most one series per part: the parts are read as they are, without
  // `sum by`, which gives each node the same value at a fraction of the cost.
  bool per_series = false;
  // Recording rules whose series are this configuration's receive and transmit rates per
  // scrape target (see find_rate_rules): read instead of the counters. Empty: none.
  std::string receive_rule{};
  std::string transmit_rule{};

  bool operator==(const QueryShape&) const = default;
};

// A double-quoted PromQL string literal whose unquoted value is exactly `value` (Go escapes:
// backslash, quote, newline, carriage return, tab, other control bytes as \xHH).
std::string quote_promql_string(std::string_view value);

// The device matcher of NETSCORE_INTERFACE: device="x", device=~"x" when x holds a regex operator,
// and device!="x" / device!~"x" for "!x" (every device but those).
std::string device_matcher(const QueryConfig& config);

// Whether the score part is the receive rate itself, which the answer then holds once: the rate
// function outside custom mode (a custom query's score is whatever it computes).
bool score_is_rate(const QueryConfig& config);

// The query of a refresh: one read of each direction's counter, every node at once. Per node: the
// score and the receive rate; unless the basis is raw and the direction receive, the transmit
// rate; and the transmit score when the direction is not receive and the function is not rate
// (the raw value in the direction, for the raw basis and for nodes without a speed). Each
// direction is one request, its parts joined by `or`; its first part goes untagged. Telling the
// two counters apart inside one expression would need a label_replace and an `or` over every
// series, which cost Prometheus about half a read more than two requests evaluated at the same
// time (rate() drops the metric name, so one selector over both counters is refused). Link speeds
// change far less often than rates and are asked apart (build_speed_query). Throws QueryError
// naming the offending setting.
BuiltQuery build_batch_query(const QueryConfig& config, const QueryShape& shape = {});

// Whether the configuration scores or shows link figures: the transmit rate in the batch, the
// link speeds in build_speed_query.
bool asks_link_parts(const QueryConfig& config);

// The link speeds, per node: the number of speed series (untagged, so every node with one has a
// "score" series), the sum of the positive speeds and the count of the others, parsed as a batch.
BuiltQuery build_speed_query(const QueryConfig& config, const QueryShape& shape = {});

// The speed series as they are, when the shape reads one series per node under a node label the
// series carry (per_series, label or custom mode, the layout resolved): each answer series'
// value is its node's speed, non-positive for a device without one. A third of the aggregated
// form's cost. nullopt when the shape does not allow it.
std::optional<BuiltQuery> build_speed_series_query(const QueryConfig& config,
                                                   const QueryShape& shape);

// The given parts in one expression, each tagged with its kind under kKindLabel: the form a
// refresh asked before its parts were split by direction and the speeds asked apart (the
// benchmark compares the two).
std::string build_tagged_parts_query(const QueryConfig& config,
                                     std::span<const std::string_view> kinds);

// One part of the batch on its own, exactly as the batch embeds it before tagging: tests evaluate
// it in Prometheus to check the batch's answer, and the benchmark prices the parts.
std::string build_part_query(const QueryConfig& config, std::string_view kind);

// What the original Go plugin asked per node (label and uname modes; label mode matches
// config.node_label), used to prove that the batch query gives every node the same value, and by
// the benchmark.
std::string build_per_node_query(const QueryConfig& config, std::string_view node);

}  // namespace netscore::collector

namespace netscore::collector {

// The link load netscore scores by, as one instant vector for readers outside netscore
// (kubernetes-sigs/descheduler's LowNodeUtilization): per node, the rate in NETSCORE_DIRECTION
// (max: the larger of the two) over the sum of its positive link speeds, else over
// NETSCORE_FALLBACK_LINK_SPEED, read from the counters, device matcher, window and node label the
// refresh reads (with the layout `shape` found); the node name in `instance`. Above 1 where the
// counters count more than the speed (rate()'s extrapolation, a speed reported too low, a
// counter that counts demand). A node with neither a speed nor a fallback has no series. Every
// basis: the raw basis scores bytes, but a reader that wants a fraction gets this one.
std::string build_link_load_query(const QueryConfig& config, const QueryShape& shape = {});

// The series `load` clamped to [0, 1], the range the descheduler accepts: the utilisation.
std::string build_clamped_utilisation_query(std::string_view load);

// build_clamped_utilisation_query of build_link_load_query.
std::string build_utilisation_query(const QueryConfig& config, const QueryShape& shape = {});

// model::RebalanceFigure::relative over the series `load` (one per node, build_link_load_query's):
// each over twice their mean, clamped to [0, 1]; every node 0.5 while the mean is 0. Labels kept.
// From the load, not the clamped utilisation: a link counted above its speed would otherwise read
// as 1 while the mean rises, and in a busy cluster (a mean of 0.7) never reach 1.5x it.
std::string build_relative_utilisation_query(std::string_view load);

// model::figure_direction over the series `receive` and `transmit` (build_link_load_query's in
// each direction): each node's load in the direction with the larger mean, receive on a tie or
// when no node has a transmit series. Labels kept.
std::string build_main_direction_load_query(std::string_view receive, std::string_view transmit);

// The refresh's query settings with the rates over NETSCORE_REBALANCE_WINDOW: the load the
// descheduler's figure and the rebalance labeler's nomination are computed from is
// build_link_load_query of these.
QueryConfig rebalance_query_config(const Config& config);

}  // namespace netscore::collector
