#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

// Synthetic node-exporter data for tests, the benchmark and demos: per node two devices of
// node_network_receive_bytes_total{instance,kubernetes_node,device} and
// node_uname_info{instance,nodename} (with SynthOptions::links also the devices'
// node_network_transmit_bytes_total and node_network_speed_bytes), written as OpenMetrics text for
// `promtool tsdb create-blocks-from openmetrics`. Pure functions: thread-safe.
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
  // Also the transmit counters and the link speeds (SynthNode's transmit and speed fields).
  bool links = false;
};

// What the benchmarks read: node-exporter's receive and transmit counters and link speeds for
// `nodes` nodes labelled by kubernetes_node, six minutes of them ending two minutes after `now_s`,
// so that a 5m window evaluated at now_s + 60 lies inside them.
inline SynthOptions benchmark_links(unsigned nodes, std::int64_t now_s) {
  SynthOptions options;
  options.nodes = nodes;
  options.end_s = now_s + 120;
  options.hours = 0.1;
  options.links = true;
  return options;
}

inline constexpr double kSynthGigabit = 125'000'000;  // 1 Gb/s in bytes/s
inline constexpr double kSynthTenGigabit = 1'250'000'000;

struct SynthNode {
  std::string name;        // kubernetes_node and nodename
  std::string instance;    // host:port as node-exporter would be scraped
  double bytes_per_s = 0;  // eth0 receive rate; 0 for the idle node
  bool idle = false;
  bool counter_reset = false;       // eth0 counter drops to zero mid-window (node-exporter restart)
  double transmit_bytes_per_s = 0;  // eth0 transmit rate; 0 for the idle node
  // eth0's node_network_speed_bytes until the window's midpoint (the counter reset's time), and
  // from then on; no series at all without speed_series. -1 is node-exporter's "no link speed".
  bool speed_series = true;
  double speed_first_half = 0;
  double speed_second_half = 0;
};

// Node 0 is idle, node 1 has a counter reset, every other node gets a distinct load. Transmit
// loads differ from receive loads: the busier direction changes from node to node. Link speeds:
// even nodes 1 Gb/s, odd nodes 10 Gb/s, except node 2 (-1, a virtual device), node 3 (no speed
// series) and node 4 (1 Gb/s, then 10 Gb/s from the midpoint on).
std::vector<SynthNode> synth_nodes(unsigned count);

void write_openmetrics(const SynthOptions& options, std::ostream& out);

// The same samples in the Prometheus text format with millisecond timestamps, as
// VictoriaMetrics' /api/v1/import/prometheus takes them.
void write_prometheus_text(const SynthOptions& options, std::ostream& out);

}  // namespace netscore::testing
