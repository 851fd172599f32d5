#include "tests/integration/support/synth.h"

#include <cstdio>

namespace netscore::testing {
namespace {

constexpr double kOtherInterfaceBytesPerS = 777'777;

void write_counter(std::ostream& out, const SynthNode& node, const char* device, double bytes_per_s, double base,
                   std::int64_t start_s, const SynthOptions& o, bool reset) {
  const std::int64_t reset_at = start_s + (o.end_s - start_s) / 2;
  char line[256];
  for (std::int64_t t = start_s; t <= o.end_s; t += o.step_s) {
    const double value = reset && t >= reset_at ? bytes_per_s * static_cast<double>(t - reset_at)
                                                : base + bytes_per_s * static_cast<double>(t - start_s);
    std::snprintf(line, sizeof line,
                  "node_network_receive_bytes_total{device=\"%s\",instance=\"%s\",kubernetes_node=\"%s\"} %.0f %lld\n",
                  device, node.instance.c_str(), node.name.c_str(), value, static_cast<long long>(t));
    out << line;
  }
}

}  // namespace

std::vector<SynthNode> synth_nodes(unsigned count) {
  std::vector<SynthNode> nodes;
  nodes.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    char name[32];
    char instance[48];
    std::snprintf(name, sizeof name, "node-%05u", i);
    std::snprintf(instance, sizeof instance, "10.%u.%u.%u:9100", (i >> 16) & 0xFFU, (i >> 8) & 0xFFU, i & 0xFFU);
    SynthNode n{name, instance, 1000.0 * (i + 1) + 13.0 * (i % 7), i == 0, i == 1};
    if (n.idle) n.bytes_per_s = 0;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void write_openmetrics(const SynthOptions& o, std::ostream& out) {
  const auto nodes = synth_nodes(o.nodes);
  const std::int64_t start_s = o.end_s - static_cast<std::int64_t>(o.hours * 3600);
  out << "# HELP node_network_receive_bytes Network device statistic receive_bytes.\n"
         "# TYPE node_network_receive_bytes counter\n";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    // As if node-exporter had counted for a day at the node's rate: sum_over_time of the counter
    // (what the Go plugin scores) then differs clearly between nodes; the idle node stays at 0.
    const double base = nodes[i].bytes_per_s * 86400;
    write_counter(out, nodes[i], kSynthInterface, nodes[i].bytes_per_s, base, start_s, o, nodes[i].counter_reset);
    write_counter(out, nodes[i], kSynthOtherInterface, kOtherInterfaceBytesPerS, kOtherInterfaceBytesPerS * 86400,
                  start_s, o, false);
  }
  out << "# HELP node_uname_info Labeled system information as provided by the uname system call.\n"
         "# TYPE node_uname_info gauge\n";
  char line[256];
  for (const auto& n : nodes) {
    for (std::int64_t t = start_s; t <= o.end_s; t += o.step_s) {
      std::snprintf(line, sizeof line, "node_uname_info{instance=\"%s\",nodename=\"%s\"} 1 %lld\n", n.instance.c_str(),
                    n.name.c_str(), static_cast<long long>(t));
      out << line;
    }
  }
  out << "# EOF\n";
}

}  // namespace netscore::testing
