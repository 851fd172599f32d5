#include "tests/support/herd_model.h"

#include <cstdio>

#include "tests/support/synth.h"

namespace netscore::testing::herd {

Cluster twenty_nodes() {
  Cluster c;
  c.initial_pods = {3, 7, 5, 9, 2, 6, 4, 8, 1, 5, 7, 3, 6, 9, 4, 2, 8, 6, 5, 7};
  for (std::size_t i = 0; i < c.initial_pods.size(); ++i) {
    c.names.push_back((i < 10 ? "node-0" : "node-") + std::to_string(i));
  }
  return c;
}

std::vector<unsigned> water_filling(std::span<const unsigned> initial, unsigned pods) {
  std::vector<unsigned> placed(initial.size(), 0);
  if (initial.empty()) return placed;
  for (unsigned p = 0; p < pods; ++p) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < initial.size(); ++i) {
      if (initial[i] + placed[i] < initial[best] + placed[best]) best = i;
    }
    ++placed[best];
  }
  return placed;
}

unsigned pods_away(std::span<const unsigned> a, std::span<const unsigned> b) {
  unsigned l1 = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    l1 += a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
  return l1 / 2;
}

unsigned nodes_used(std::span<const unsigned> placed) {
  unsigned n = 0;
  for (const unsigned p : placed) n += p > 0 ? 1 : 0;
  return n;
}

void write_traffic(const Cluster& cluster, std::int64_t end_s, double hours, unsigned step_s,
                   std::ostream& out) {
  const std::int64_t start_s = end_s - static_cast<std::int64_t>(hours * 3600);
  out << "# HELP node_network_receive_bytes Network device statistic receive_bytes.\n"
         "# TYPE node_network_receive_bytes counter\n";
  char line[256];
  for (std::size_t i = 0; i < cluster.names.size(); ++i) {
    const double rate = kBytesPerSecondPerPod * cluster.initial_pods[i];
    for (std::int64_t t = start_s; t <= end_s; t += step_s) {
      std::snprintf(line, sizeof line,
                    "node_network_receive_bytes_total{device=\"%s\",instance=\"10.0.0.%zu:9100\","
                    "kubernetes_node=\"%s\"} %.0f %lld\n",
                    kSynthInterface, i + 1, cluster.names[i].c_str(),
                    rate * static_cast<double>(86400 + t - start_s), static_cast<long long>(t));
      out << line;
    }
  }
  out << "# EOF\n";
}

}  // namespace netscore::testing::herd
