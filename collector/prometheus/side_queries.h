#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/prometheus/response_parser.h"
#include "common/config.h"

// The questions asked off the refresh's path, whose answers change far less often than rates:
// which node label the series carry, and which recording rules already compute the rates. Pure
// functions (the pipeline's QueryPlan asks and caches): thread-safe.
namespace netscore::collector {

// The label layout_query() tags its counts with.
inline constexpr std::string_view kLayoutLabel = "netscore_label";

// For NETSCORE_NODE_LABEL's candidates in order: how many series of the receive metric on the
// interface have that candidate as their first present one (the transmit counter and the speeds
// are read with the label found). Each candidate with such series is one answer series under
// kLayoutLabel.
std::string build_layout_query(const QueryConfig& config);

// The one candidate every series names its node by, when the layout query found exactly one:
// reading that label alone gives every node the value the per-series chain gives it. Otherwise
// (series name their node by different candidates, or by none) nothing.
std::optional<std::string> single_node_label(const ParsedVector& layout_answer);

// A recording rule that is this configuration's rate of one counter, per scrape target:
// `sum without (device) (rate(<metric>{<device matcher>[, job="<job>"]}[<NETSCORE_TIME_RANGE>]))`
// (node-exporter's mixin: instance:node_network_receive_bytes_physical:rate5m and its transmit
// twin for NETSCORE_INTERFACE='!lo|veth.+' with NETSCORE_INTERFACE_REGEX=true).
struct RateRule {
  std::string name;
  std::string job;  // the rule's job matcher; empty: none (it reads every job)
};

struct RateRules {
  std::optional<RateRule> receive;
  std::optional<RateRule> transmit;
};

// The recording rules of a /api/v1/rules answer that stand for NETSCORE_RECEIVE_METRIC's and
// NETSCORE_TRANSMIT_METRIC's rates. A rule matches only with exactly the interface's device
// matcher and the window, so its value is the batch's own rate part. Throws std::runtime_error
// for an answer that is not Prometheus' rules list.
RateRules find_rate_rules(std::string_view rules_body, const QueryConfig& config);

// The counter series on the interface that a rule with a job matcher leaves out: the rule
// stands for the rate only when this answers no series.
std::string build_rule_coverage_query(const QueryConfig& config, const RateRules& rules);

}  // namespace netscore::collector
