#include "collector/prometheus/promql.h"

#include <set>
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
// The same without `pod!=""` and `namespace!=""`, for the reads: Prometheus selects a label
// `!=""` by merging the series of every value it has, a pod's each, which at 150,000 pods costs
// more than the rates themselves. The series they would leave out (the root cgroup's, a runtime's
// without pod labels) sum into one series without a pod or a namespace, which the reader skips;
// the recent read's regexes name non-empty values alone.
constexpr std::string_view kPodSandboxRead = R"(container="",interface!="lo")";

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
  return "sum by (namespace, pod) (rate(" + metric + "{" + std::string(kPodSandboxRead) + "}[" +
         std::string(window) + "]))";
}

std::string regex_escape(std::string_view text) {
  constexpr std::string_view kSpecial = R"(\.+*?()|[]{}^$)";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string build_recent_pod_traffic_query(const std::string& metric, std::string_view range,
                                           std::span<const std::string> pods) {
  // Sorted and unique: the same pods give the same query text.
  std::set<std::string> namespaces, names;
  for (const std::string& key : pods) {
    const std::size_t slash = key.find('/');
    namespaces.insert(regex_escape(std::string_view(key).substr(0, slash)));
    names.insert(regex_escape(
        slash == std::string::npos ? std::string_view() : std::string_view(key).substr(slash + 1)));
  }
  const auto alternation = [](const std::set<std::string>& values) {
    std::string out;
    for (const std::string& v : values) {
      if (!out.empty()) out += '|';
      out += v;
    }
    return quote_promql_string(out);
  };
  return "sum by (namespace, pod) (deriv(" + metric + "{" + std::string(kPodSandboxRead) +
         ",namespace=~" + alternation(namespaces) + ",pod=~" + alternation(names) + "}[" +
         std::string(range) + "]))";
}

}  // namespace netscore::collector
