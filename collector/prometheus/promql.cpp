#include "collector/prometheus/promql.h"

#include <utility>

#include "collector/prometheus/query_builder.h"

namespace netscore::collector {
namespace {

// The receive counter on the interface: the transmit counter and the link speeds are read with
// the node label it carries, as node-exporter gives all three the labels of one scrape target.
// Counting them too would triple the cost of every check, for a layout no exporter has.
std::string metric_selector(const QueryConfig& config, const std::string& extra) {
  return config.metric + "{" + device_matcher(config) + extra + "}";
}

constexpr std::string_view kPodSandbox = R"(container="",pod!="",namespace!="",interface!="lo")";

}  // namespace

std::string build_layout_query(const QueryConfig& config) {
  const auto& labels = config.node_labels;
  std::string q;
  std::string absent;  // the higher-priority candidates, absent
  for (const auto& label : labels) {
    if (!q.empty()) q += " or ";
    q += "label_replace(count(" + metric_selector(config, absent + "," + label + "!=\"\"") +
         "), \"" + std::string(kLayoutLabel) + "\", \"" + label + "\", \"\", \"\")";
    absent += "," + label + "=\"\"";
  }
  return q;
}

std::string build_rule_coverage_query(const QueryConfig& config, const RateRules& rules) {
  std::string q;
  for (const auto& [rule, metric] : {std::pair{&rules.receive, &config.metric},
                                     std::pair{&rules.transmit, &config.transmit_metric}}) {
    if (!*rule || (*rule)->job.empty()) continue;
    if (!q.empty()) q += " or ";
    q += "count(" + *metric + "{" + device_matcher(config) +
         ",job!=" + quote_promql_string((*rule)->job) + "})";
  }
  return q;
}

std::string build_devices_query(const std::string& metric, std::string_view braces) {
  return "count by (device) (" + metric + std::string(braces) + ")";
}

std::string build_uname_nodenames_query() {
  return "count by (nodename) (node_uname_info)";
}

std::string build_uname_join_query(const std::string& selector) {
  return "count by (nodename) (" + selector +
         " * on(instance) group_left(nodename) node_uname_info)";
}

std::string build_diagnosis_selector(const QueryConfig& config, const std::string& device) {
  if (device.empty()) return config.metric + "{" + device_matcher(config) + "}";
  return config.metric + "{device=" + quote_promql_string(device) + "}";
}

std::string build_pod_series_query(const std::string& metric) {
  return "count(" + metric + "{" + std::string(kPodSandbox) + "})";
}

std::string build_pod_traffic_query(const std::string& metric, std::string_view window) {
  return "sum by (namespace, pod) (rate(" + metric + "{" + std::string(kPodSandbox) + "}[" +
         std::string(window) + "]))";
}

}  // namespace netscore::collector
