#include "collector/prometheus/diagnosis.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "collector/prometheus/promql.h"
#include "collector/prometheus/query_builder.h"
#include "common/kubernetes_names.h"

namespace netscore::collector {
namespace {

// Labels whose values are names but never node names (scrape plumbing, the exporter's pod).
constexpr std::array kNotNodeLabels = {
    "__name__", "device",    "job",          "namespace",  "service",
    "endpoint", "container", "pod",          "prometheus", "prometheus_replica",
    "cluster",  "scheme",    "metrics_path", "tenant_id"};

// Interfaces that carry pod or loopback traffic, not the node's uplink.
constexpr std::array kVirtualPrefixes = {"lo",    "veth",  "cali", "cni",    "docker", "flannel",
                                         "tunl",  "vxlan", "kube", "cilium", "lxc",    "br-",
                                         "virbr", "tap",   "tun",  "weave",  "genev",  "nodelocal",
                                         "dummy", "ovs",   "gre",  "erspan", "ip6",    "sit"};

struct Answer {
  std::string error;
  std::vector<model::NodeSample> rows;
};

// The counts of a `count by (<label>)` query, largest first.
Answer ask(PrometheusApi& api, const std::string& promql, std::string_view label,
           std::int64_t eval_time_ms) {
  ApiResult<ParsedVector> answer =
      api.query({.promql = promql, .node_label = std::string(label)}, eval_time_ms);
  if (!answer.ok()) return {std::move(answer.error), {}};
  std::vector<model::NodeSample>& rows = answer.value->samples;
  std::sort(rows.begin(), rows.end(), [](const model::NodeSample& a, const model::NodeSample& b) {
    return a.value > b.value || (a.value == b.value && a.node < b.node);
  });
  return {{}, std::move(rows)};
}

bool is_virtual(const std::string& device) {
  return std::any_of(kVirtualPrefixes.begin(), kVirtualPrefixes.end(),
                     [&](const char* prefix) { return device.starts_with(prefix); });
}

// Distinct values of every label of the metric's series on one device.
std::string label_values(PrometheusApi& api, const std::string& selector, std::int64_t eval_time_ms,
                         std::map<std::string, std::set<std::string>>& out) {
  const ApiResult<std::vector<SeriesLabels>> answer = api.series_labels(selector, eval_time_ms);
  if (!answer.ok()) return answer.error;
  for (const SeriesLabels& series : *answer.value) {
    for (const auto& [label, value] : series) out[label].insert(value);
  }
  return {};
}

int label_rank(const std::string& label) {
  const auto& preferred = auto_node_labels();
  const auto it = std::find(preferred.begin(), preferred.end(), label);
  return static_cast<int>(it - preferred.begin());
}

std::string join(const std::vector<std::string>& items, std::string_view separator,
                 std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  if (items.size() > limit) out += std::string(separator) + "...";
  return out;
}

// The metric's devices, most series first; false after saying why there are none to look at.
bool find_devices(PrometheusApi& api, const QueryConfig& config, std::int64_t eval_time_ms,
                  Diagnosis& d) {
  const Answer devices = ask(api, build_devices_query(config.metric), "device", eval_time_ms);
  if (!devices.error.empty()) {
    d.findings.push_back("Asking Prometheus for the devices of " + config.metric +
                         " failed: " + devices.error + ".");
    return false;
  }
  for (const auto& row : devices.rows) d.devices.push_back(row.node);
  if (!d.devices.empty()) return true;
  const Answer uname = ask(api, build_uname_nodenames_query(), "nodename", eval_time_ms);
  d.findings.push_back("Prometheus has no series of " + config.metric +
                       " at all: is node-exporter scraped, or for a recording rule, "
                       "is the rule loaded? (NETSCORE_RECEIVE_METRIC)");
  if (uname.error.empty() && uname.rows.empty())
    d.findings.push_back("node_uname_info does not exist either.");
  return false;
}

// The device to look for node labels on: empty when the configured interface has series, else
// the first that is not virtual, suggested as NETSCORE_INTERFACE.
std::string device_to_try(PrometheusApi& api, const QueryConfig& config, std::int64_t eval_time_ms,
                          Diagnosis& d) {
  const Answer matched =
      ask(api, build_devices_query(config.metric, "{" + device_matcher(config) + "}"), "device",
          eval_time_ms);
  if (matched.error.empty() && !matched.rows.empty()) return {};
  const auto uplink = std::find_if(d.devices.begin(), d.devices.end(),
                                   [](const std::string& dev) { return !is_virtual(dev); });
  const std::string device = uplink != d.devices.end() ? *uplink : d.devices.front();
  d.findings.push_back("No series of " + config.metric + " has " + device_matcher(config) +
                       " (NETSCORE_INTERFACE); its devices are " + join(d.devices, ", ", 12) + ".");
  d.settings.push_back("NETSCORE_INTERFACE=" + device);
  return device;
}

// node_uname_info's nodenames, and whether they join the metric on instance.
std::set<std::string> check_uname(PrometheusApi& api, const std::string& selector,
                                  std::int64_t eval_time_ms, Diagnosis& d) {
  std::set<std::string> nodenames;
  const Answer uname = ask(api, build_uname_nodenames_query(), "nodename", eval_time_ms);
  for (const auto& row : uname.rows) nodenames.insert(row.node);
  if (nodenames.empty()) {
    d.findings.push_back(
        "node_uname_info does not exist, so NETSCORE_QUERY_MODE=uname cannot work.");
    return nodenames;
  }
  const Answer joined = ask(api, build_uname_join_query(selector), "nodename", eval_time_ms);
  d.uname_available = joined.error.empty() && !joined.rows.empty();
  if (!d.uname_available) {
    d.findings.push_back("node_uname_info exists but does not join " + selector + " on instance" +
                         (joined.error.empty() ? "" : " (" + joined.error + ")") + ".");
  }
  return nodenames;
}

// The labels of the metric's series whose every value is a node name, best first.
void find_node_labels(PrometheusApi& api, const std::string& selector,
                      const std::set<std::string>& nodenames, std::int64_t eval_time_ms,
                      Diagnosis& d) {
  std::map<std::string, std::set<std::string>> values;
  if (const std::string error = label_values(api, selector, eval_time_ms, values); !error.empty()) {
    d.findings.push_back("Reading the labels of " + selector + " failed: " + error + ".");
  }
  for (const auto& [label, label_set] : values) {
    if (std::find(kNotNodeLabels.begin(), kNotNodeLabels.end(), label) != kNotNodeLabels.end())
      continue;
    LabelFinding f{.label = label,
                   .values = static_cast<std::uint32_t>(label_set.size()),
                   .example = *label_set.begin()};
    for (const auto& v : label_set) {
      if (is_dns_subdomain(v)) ++f.node_names;
      if (nodenames.count(v) > 0) ++f.uname_matches;
    }
    if (f.node_names == 0) {
      if (label_rank(label) < static_cast<int>(auto_node_labels().size())) {
        d.findings.push_back("Label " + label + " holds values like \"" + f.example +
                             "\", which are not node names.");
      }
      continue;
    }
    // Every value must be a node name, and where node_uname_info knows the nodes, some must be
    // theirs.
    if (f.node_names == f.values && (nodenames.empty() || f.uname_matches > 0))
      d.labels.push_back(std::move(f));
  }
  std::sort(d.labels.begin(), d.labels.end(), [](const LabelFinding& a, const LabelFinding& b) {
    if (a.uname_matches != b.uname_matches) return a.uname_matches > b.uname_matches;
    if (label_rank(a.label) != label_rank(b.label))
      return label_rank(a.label) < label_rank(b.label);
    return a.values > b.values;
  });
}

// The layout the findings point to: the best node label, node_uname_info, or neither.
void suggest_settings(const QueryConfig& config, const std::string& selector, Diagnosis& d) {
  if (!d.labels.empty()) {
    const LabelFinding& best = d.labels.front();
    std::vector<std::string> names;
    for (const auto& f : d.labels)
      names.push_back(f.label + " (" + std::to_string(f.values) + " values, e.g. \"" + f.example +
                      "\")");
    d.findings.push_back("Labels carrying node-like names: " + join(names, ", ", 5) + ".");
    if (config.mode != QueryMode::label) d.settings.push_back("NETSCORE_QUERY_MODE=label");
    d.settings.push_back("NETSCORE_NODE_LABEL=" + best.label);
  } else if (d.uname_available) {
    d.findings.push_back("No label of " + selector +
                         " carries node names, but node_uname_info{nodename} joins on instance.");
    if (config.mode != QueryMode::uname) d.settings.push_back("NETSCORE_QUERY_MODE=uname");
  } else {
    d.findings.push_back(
        "No label of " + selector +
        " carries node names and node_uname_info does not help: relabel node-exporter's targets "
        "(e.g. instance from __meta_kubernetes_pod_node_name) or use NETSCORE_QUERY_MODE=custom.");
  }
}

}  // namespace

NameFilter remove_non_node_names(std::vector<model::NodeSample>& samples) {
  NameFilter filter;
  std::erase_if(samples, [&filter](const model::NodeSample& s) {
    if (is_dns_subdomain(s.node)) return false;
    if (filter.rejected++ == 0) filter.example = s.node;
    return true;
  });
  return filter;
}

std::string describe_rejected_names(const NameFilter& filter, const QueryConfig& config) {
  if (filter.rejected == 0) return {};
  const std::string source = config.mode == QueryMode::uname ? "nodename"
                             : config.node_labels.size() > 1
                                 ? "first of " + join(config.node_labels, ",", 8)
                                 : config.node_label;
  return std::to_string(filter.rejected) + " series name their node \"" + filter.example +
         "\" (label " + source +
         "), which can never be a Kubernetes node name: not scored. "
         "Scrape addresses are not node names: relabel node-exporter's targets or pick another "
         "NETSCORE_NODE_LABEL (see netscore-collector --check).";
}

std::string Diagnosis::summary() const {
  // Settings first: the table status keeps 511 bytes, and they are what an operator acts on.
  std::string text =
      settings.empty() ? std::string() : "Try: " + join(settings, " ", settings.size()) + ". ";
  return text + join(findings, " ", findings.size());
}

Diagnosis diagnose(PrometheusApi& api, const QueryConfig& config, std::int64_t eval_time_ms) {
  Diagnosis d;
  if (!find_devices(api, config, eval_time_ms, d)) return d;
  const std::string selector =
      build_diagnosis_selector(config, device_to_try(api, config, eval_time_ms, d));
  const std::set<std::string> nodenames = check_uname(api, selector, eval_time_ms, d);
  find_node_labels(api, selector, nodenames, eval_time_ms, d);
  suggest_settings(config, selector, d);
  return d;
}

}  // namespace netscore::collector
