#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "collector/prometheus/query_builder.h"
#include "common/config.h"

// `netscore-collector --print-rules`: the link utilisation netscore scores by, written for
// kubernetes-sigs/descheduler's LowNodeUtilization, which reads node utilisation from Prometheus
// (one series per node labelled `instance`, values in [0, 1]). Prints a Prometheus rule group
// recording build_link_load_query for the layout found in Prometheus (asked as `--check` asks),
// that clamped to [0, 1] and the load relative to the cluster's mean (with direction max, the load
// in the direction the cluster's traffic mostly goes, recorded on the way), then the descheduler's
// thresholds and metricsUtilization reading the series NETSCORE_REBALANCE_UTILISATION names.
namespace netscore::collector {

// The recorded series' names (deploy/monitoring's rules): the load, the utilisation (the load
// clamped to [0, 1]), and the load over twice the cluster's mean, which the descheduler overlay's
// policy reads.
inline constexpr std::string_view kLinkLoadRecord = "node:netscore_link_load:ratio";
inline constexpr std::string_view kUtilisationRecord = "node:netscore_link_utilisation:ratio";
inline constexpr std::string_view kRelativeUtilisationRecord =
    "node:netscore_link_utilisation:relative";
// With direction max, the load in each direction and in the one the relative figure reads
// (model::figure_direction): the rules record these too, and the relative figure reads the last.
inline constexpr std::string_view kReceiveLoadRecord = "node:netscore_link_receive_load:ratio";
inline constexpr std::string_view kTransmitLoadRecord = "node:netscore_link_transmit_load:ratio";
inline constexpr std::string_view kMainDirectionLoadRecord =
    "node:netscore_link_load_main_direction:ratio";

// The series a descheduler's thresholds in points of `figure` read.
std::string_view utilisation_record(RebalanceFigure figure);

// The YAML text for a configuration and the shape its layout check found; `layout` says how the
// node label was found (QueryPlan::describe). Pure.
std::string utilisation_rules_text(const QueryConfig& config, const RebalanceConfig& rebalance,
                                   const QueryShape& shape, std::string_view layout);

// Asks Prometheus for the layout, prints the rules, then evaluates the utilisation once and says
// which measured nodes it covers. Returns the exit status as run_check does: 0 when it covers at
// least one node the refresh measures, 1 otherwise. curl_global_init must have run.
int run_print_rules(const Config& config, std::int64_t eval_time_ms, std::ostream& out);

}  // namespace netscore::collector
