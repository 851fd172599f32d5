#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/prometheus/response_parser.h"
#include "common/config.h"

// What the answers to the questions asked off the refresh's path mean (their PromQL is
// promql.h's): which node label the series carry, and which recording rules already compute the
// rates. Pure functions (the pipeline's QueryPlan asks and caches): thread-safe.
namespace netscore::collector {

// The label the layout query (promql.h's build_layout_query) tags its counts with.
inline constexpr std::string_view kLayoutLabel = "netscore_label";

// The one candidate every series names its node by, when the layout query found exactly one:
// reading that label alone gives every node the value the per-series chain gives it. Otherwise
// (series name their node by different candidates, or by none) nothing.
std::optional<std::string> single_node_label(const ParsedVector& layout_answer);

// A recording rule that is this configuration's rate of one counter, per scrape target:
// `sum without (device) (rate(<metric>{<device matcher>[, job="<job>"]}[<NETSCORE_TIME_RANGE>]))`
// (node-exporter's mixin: instance:node_network_receive_bytes_physical:rate5m and its transmit
// twin for NETSCORE_INTERFACE='!lo|veth.+', a regex).
struct RateRule {
  std::string name;
  std::string job;  // the rule's job matcher; empty: none (it reads every job)
};

struct RateRules {
  std::optional<RateRule> receive;
  std::optional<RateRule> transmit;
};

// The recording rules that stand for NETSCORE_RECEIVE_METRIC's and its transmit twin's
// rates. A rule matches only with exactly the interface's device matcher and the window, so its
// value is the batch's own rate part.
RateRules find_rate_rules(const std::vector<RecordingRule>& rules, const QueryConfig& config);

}  // namespace netscore::collector
