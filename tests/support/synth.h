#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

// Synthetic node-exporter data for tests, the benchmark and demos: per node two devices of
// node_network_receive_bytes_total{instance,kubernetes_node,device} and
// node_uname_info{instance,nodename}, written as OpenMetrics text for `promtool tsdb
// create-blocks-from openmetrics`. Pure functions: thread-safe.
namespace netscore::testing {

inline constexpr const char* kSynthInterface = "eth0";       // the one tests configure
inline constexpr const char* kSynthOtherInterface = "eth1";  // must never count

// How node-exporter's series name their node.
enum class SynthLayout {
  // The original plugin's: kubernetes_node = node name, instance = host:port.
  kubernetes_node,
  // kube-prometheus, OpenShift, KubeSphere: instance relabelled to the node name, no
  // kubernetes_node, plus the ServiceMonitor's job/namespace/pod/service/endpoint labels.
  kube_prometheus,
  // Neither: instance = host:port and nothing else names the node (node_uname_info still does).
  neither,
};

struct SynthOptions {
  unsigned nodes = 20;
  std::int64_t end_s = 0;  // last sample time (Unix seconds)
  double hours = 2;        // window length ending at end_s
  unsigned step_s = 15;
  SynthLayout layout = SynthLayout::kubernetes_node;
  // Non-empty: the receive counters are also written under this name (a recording rule's, with
  // ':').
  std::string extra_metric;
};

struct SynthNode {
  std::string name;        // kubernetes_node and nodename
  std::string instance;    // host:port as node-exporter would be scraped
  double bytes_per_s = 0;  // eth0 receive rate; 0 for the idle node
  bool idle = false;
  bool counter_reset = false;  // eth0 counter drops to zero mid-window (node-exporter restart)
};

// Node 0 is idle, node 1 has a counter reset, every other node gets a distinct load.
std::vector<SynthNode> synth_nodes(unsigned count);

void write_openmetrics(const SynthOptions& options, std::ostream& out);

// The same samples in the Prometheus text format with millisecond timestamps, as
// VictoriaMetrics' /api/v1/import/prometheus takes them.
void write_prometheus_text(const SynthOptions& options, std::ostream& out);

}  // namespace netscore::testing
