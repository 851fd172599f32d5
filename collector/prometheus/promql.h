#pragma once

#include <span>
#include <string>
#include <string_view>

#include "collector/prometheus/side_queries.h"
#include "common/config.h"

// The PromQL of the questions asked off the refresh's query: what the refresh may rely on
// (side_queries.h), why a configuration finds no nodes (diagnosis.h), and the traffic per pod.
// The refresh's own batch is query_builder.h's. As there, configured values reach a query only
// quoted (quote_promql_string) or validated. Pure functions: thread-safe.
namespace netscore::collector {

// For NETSCORE_NODE_LABEL's candidates in order: how many series of the receive metric on the
// interface have that candidate as their first present one (the transmit counter and the speeds
// are read with the label found). Each candidate with such series is one answer series under
// kLayoutLabel.
std::string build_layout_query(const QueryConfig& config);

// The counter series on the interface that a rule with a job matcher leaves out: the rule
// stands for the rate only when this answers no series.
std::string build_rule_coverage_query(const QueryConfig& config, const RateRules& rules);

// The diagnosis' questions. `selector` is a metric with its matchers (diagnosis_selector).
// The number of series per device of the metric, restricted by `braces` ("{...}" or empty).
std::string build_devices_query(const std::string& metric, std::string_view braces = {});
// The number of node_uname_info series per nodename.
std::string build_uname_nodenames_query();
// The number of the selector's series per nodename, joined with node_uname_info on instance.
std::string build_uname_join_query(const std::string& selector);
// The metric on the configured device matcher (empty `device`), or on exactly `device`.
std::string build_diagnosis_selector(const QueryConfig& config, const std::string& device);

// Traffic per pod from cAdvisor's per-container counters
// (container_network_{receive,transmit}_bytes_total, kubelet's /metrics/cadvisor). A pod's
// network namespace belongs to its sandbox, whose series is the pause container's:
// container="". The root cgroup's series (id="/") carry one host interface each and an empty pod
// label, and are left out with pod!="". `lo` is a pod's loopback, never network traffic; every
// other interface of a pod's namespace (eth0, and the extra interfaces of multi-homed pods) is.
//
// The number of the metric's pod sandbox series with a namespace and a pod: non-zero when the
// runtime fills cAdvisor's pod labels (some leave them empty).
std::string build_pod_series_query(const std::string& metric);
// Per namespace and pod, the metric's rate in bytes/s over `window` (a PromQL duration).
std::string build_pod_traffic_query(const std::string& metric, std::string_view window);
// Per namespace and pod of `pods` ("namespace/name" each), the slope in bytes/s of the metric's
// samples over `range`: deriv(), not rate(), because rate() extrapolates a series that starts
// inside its range towards the range's start, by an amount that depends on when the pod's first
// samples fell; the slope of the samples a pod has is its rate from its second scrape on. A
// counter reset within the range (a sandbox restarted) makes it wrong for that range alone. The
// selector names the pods' namespaces and names as two regex alternations (regex-escaped): it may
// match a pod of one namespace named like a pod of another, which the caller leaves out.
std::string build_recent_pod_traffic_query(const std::string& metric, std::string_view range,
                                           std::span<const std::string> pods);
// `text` matched literally by a PromQL (RE2) regex.
std::string regex_escape(std::string_view text);

}  // namespace netscore::collector
