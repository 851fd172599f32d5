#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collector/prometheus/prometheus_api.h"
#include "collector/prometheus/response_parser.h"
#include "common/config.h"
#include "common/model/inputs.h"

// Why a configuration finds no (or only some) nodes, worked out from what Prometheus has: the
// devices of the metric, the labels whose values look like node names, node_uname_info. Used by
// `netscore-collector --check` and, once per failing streak, by the refresh loop.
namespace netscore::collector {

// Samples whose name can never be a node's (Kubernetes node names are DNS subdomains,
// is_dns_subdomain), moved out of a parsed answer.
struct NameFilter {
  std::uint32_t rejected = 0;
  std::string example;  // the first rejected name
};
NameFilter remove_non_node_names(std::vector<model::NodeSample>& samples);

// One line for logs and the table status about rejected names; empty when none.
std::string describe_rejected_names(const NameFilter& filter, const QueryConfig& config);

struct LabelFinding {
  std::string label;
  std::uint32_t values = 0;         // distinct values among the metric's series on the device
  std::uint32_t node_names = 0;     // of those, valid Kubernetes node names
  std::uint32_t uname_matches = 0;  // of those, equal to a node_uname_info nodename
  std::string example;
};

struct Diagnosis {
  std::vector<std::string> findings;  // one sentence each, most important first
  std::vector<std::string>
      settings;  // NAME=value lines that would find the nodes; empty: none known
  std::vector<std::string> devices;  // devices of the metric, most series first
  std::vector<LabelFinding> labels;  // labels that carry node-like names, best first
  bool uname_available = false;      // node_uname_info joins the metric on instance

  // Settings and findings in one paragraph, for a log line and the table status.
  std::string summary() const;
};

// Asks Prometheus a few small queries at eval_time_ms. Never throws for what Prometheus answers:
// a failed query becomes a finding.
Diagnosis diagnose(PrometheusApi& api, const QueryConfig& config, std::int64_t eval_time_ms);

}  // namespace netscore::collector
