#include "tests/support/synth.h"

#include <cstdio>
#include <string>
#include <vector>

namespace netscore::testing {
namespace {

constexpr double kOtherInterfaceBytesPerS = 777'777;
constexpr double kOtherInterfaceSpeed = 12'500'000;  // 100 Mb/s

// The labels naming a node-exporter target in the chosen layout, without the braces.
std::string target_labels(const SynthNode& node, SynthLayout layout) {
  switch (layout) {
    case SynthLayout::kubernetes_node:
      return "instance=\"" + node.instance + "\",kubernetes_node=\"" + node.name + "\"";
    case SynthLayout::kube_prometheus:
      return "container=\"kube-rbac-proxy\",endpoint=\"https\",instance=\"" + node.name +
             "\",job=\"node-exporter\",namespace=\"monitoring\",pod=\"node-exporter-" +
             node.name.substr(5) + "\",service=\"node-exporter\"";
    case SynthLayout::neither:
      return "instance=\"" + node.instance + "\",job=\"node\"";
  }
  return {};
}

// Timestamps in seconds (OpenMetrics) or milliseconds (Prometheus text).
struct Format {
  std::int64_t time_scale = 1;
};

void write_counter(std::ostream& out, const std::string& metric, const SynthNode& node,
                   const char* device, double bytes_per_s, double base, std::int64_t start_s,
                   const SynthOptions& o, bool reset, Format format) {
  const std::int64_t reset_at = start_s + (o.end_s - start_s) / 2;
  const std::string labels = target_labels(node, o.layout);
  char line[512];
  for (std::int64_t t = start_s; t <= o.end_s; t += o.step_s) {
    const double value = reset && t >= reset_at
                             ? bytes_per_s * static_cast<double>(t - reset_at)
                             : base + bytes_per_s * static_cast<double>(t - start_s);
    std::snprintf(line, sizeof line, "%s{device=\"%s\",%s} %.0f %lld\n", metric.c_str(), device,
                  labels.c_str(), value, static_cast<long long>(t * format.time_scale));
    out << line;
  }
}

void write_gauge(std::ostream& out, const std::string& metric, const SynthNode& node,
                 const char* device, double first_half, double second_half, std::int64_t start_s,
                 const SynthOptions& o, Format format) {
  const std::int64_t change_at = start_s + (o.end_s - start_s) / 2;
  const std::string labels = target_labels(node, o.layout);
  char line[512];
  for (std::int64_t t = start_s; t <= o.end_s; t += o.step_s) {
    std::snprintf(line, sizeof line, "%s{device=\"%s\",%s} %.0f %lld\n", metric.c_str(), device,
                  labels.c_str(), t < change_at ? first_half : second_half,
                  static_cast<long long>(t * format.time_scale));
    out << line;
  }
}

void write_links(const SynthOptions& o, const std::vector<SynthNode>& nodes, std::int64_t start_s,
                 std::ostream& out, Format format) {
  const std::string transmit = "node_network_transmit_bytes_total";
  out << "# HELP node_network_transmit_bytes Network device statistic transmit_bytes.\n"
         "# TYPE node_network_transmit_bytes counter\n";
  for (const auto& n : nodes) {
    write_counter(out, transmit, n, kSynthInterface, n.transmit_bytes_per_s,
                  n.transmit_bytes_per_s * 86400, start_s, o, false, format);
    write_counter(out, transmit, n, kSynthOtherInterface, kOtherInterfaceBytesPerS,
                  kOtherInterfaceBytesPerS * 86400, start_s, o, false, format);
  }
  const std::string speed = "node_network_speed_bytes";
  out << "# HELP " << speed << " Network device property: speed_bytes.\n# TYPE " << speed
      << " gauge\n";
  for (const auto& n : nodes) {
    if (n.speed_series) {
      write_gauge(out, speed, n, kSynthInterface, n.speed_first_half, n.speed_second_half, start_s,
                  o, format);
    }
    write_gauge(out, speed, n, kSynthOtherInterface, kOtherInterfaceSpeed, kOtherInterfaceSpeed,
                start_s, o, format);
  }
}

void write_samples(const SynthOptions& o, std::ostream& out, Format format) {
  const auto nodes = synth_nodes(o.nodes);
  const std::int64_t start_s = o.end_s - static_cast<std::int64_t>(o.hours * 3600);
  if (o.links) write_links(o, nodes, start_s, out, format);
  std::vector<std::string> metrics{"node_network_receive_bytes_total"};
  if (!o.extra_metric.empty()) metrics.push_back(o.extra_metric);
  for (const auto& metric : metrics) {
    // OpenMetrics counters end in _total; a recording rule's output is typed gauge.
    const bool counter = metric.ends_with("_total");
    const std::string family = counter ? metric.substr(0, metric.size() - 6) : metric;
    out << "# HELP " << family << " Network device statistic receive_bytes.\n# TYPE " << family
        << (counter ? " counter\n" : " gauge\n");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      // As if node-exporter had counted for a day at the node's rate: sum_over_time of the counter
      // (what the Go plugin scores) then differs clearly between nodes; the idle node stays at 0.
      const double base = nodes[i].bytes_per_s * 86400;
      write_counter(out, metric, nodes[i], kSynthInterface, nodes[i].bytes_per_s, base, start_s, o,
                    nodes[i].counter_reset, format);
      write_counter(out, metric, nodes[i], kSynthOtherInterface, kOtherInterfaceBytesPerS,
                    kOtherInterfaceBytesPerS * 86400, start_s, o, false, format);
    }
  }
  out << "# HELP node_uname_info Labeled system information as provided by the uname system call.\n"
         "# TYPE node_uname_info gauge\n";
  char line[512];
  for (const auto& n : nodes) {
    const std::string instance = o.layout == SynthLayout::kube_prometheus ? n.name : n.instance;
    for (std::int64_t t = start_s; t <= o.end_s; t += o.step_s) {
      std::snprintf(line, sizeof line, "node_uname_info{instance=\"%s\",nodename=\"%s\"} 1 %lld\n",
                    instance.c_str(), n.name.c_str(),
                    static_cast<long long>(t * format.time_scale));
      out << line;
    }
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
    std::snprintf(instance, sizeof instance, "10.%u.%u.%u:9100", (i >> 16) & 0xFFU,
                  (i >> 8) & 0xFFU, i & 0xFFU);
    SynthNode n{name, instance, 1000.0 * (i + 1) + 13.0 * (i % 7), i == 0, i == 1};
    n.transmit_bytes_per_s = 2500.0 * (i % 6 + 1) + 7.0 * i;
    if (n.idle) {
      n.bytes_per_s = 0;
      n.transmit_bytes_per_s = 0;
    }
    n.speed_first_half = i % 2 == 0 ? kSynthGigabit : kSynthTenGigabit;
    n.speed_second_half = n.speed_first_half;
    if (i == 2) n.speed_first_half = n.speed_second_half = -1;
    if (i == 3) n.speed_series = false;
    if (i == 4) n.speed_second_half = kSynthTenGigabit;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void write_openmetrics(const SynthOptions& o, std::ostream& out) {
  write_samples(o, out, Format{1});
  out << "# EOF\n";
}

void write_prometheus_text(const SynthOptions& o, std::ostream& out) {
  write_samples(o, out, Format{1000});
}

}  // namespace netscore::testing
