#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

// The herd test's cluster and what a good scheduler would do with it: equal nodes that already
// run different numbers of identical pods, each pod adding the same receive traffic; the
// water-filling placement (each new pod to the node with the least traffic counting the pods
// placed before it, ties by name) that placing pods one at a time with fresh metrics gives. Pure:
// thread-safe.
namespace netscore::testing::herd {

inline constexpr double kBytesPerSecondPerPod = 1000;  // 1 kB/s, as the acceptance cluster

struct Cluster {
  std::vector<std::string> names;      // sorted: the tie order of every pick
  std::vector<unsigned> initial_pods;  // running before the test, per node
};

// 20 nodes node-00..node-19 with 1..9 pods each, node-08 alone the quietest.
Cluster twenty_nodes();

// Per-node counts of `pods` new pods placed by water-filling over `initial`.
std::vector<unsigned> water_filling(std::span<const unsigned> initial, unsigned pods);

// Half the L1 distance between two per-node counts of the same total: how many pods sit on a
// different node than in the other placement.
unsigned pods_away(std::span<const unsigned> a, std::span<const unsigned> b);
unsigned nodes_used(std::span<const unsigned> placed);

// OpenMetrics for promtool: node_network_receive_bytes_total{device="eth0",kubernetes_node=...} at
// kBytesPerSecondPerPod x initial pods, from end_s - hours to end_s every step_s. The counter
// starts as if it had counted a day at that rate, so the plugin's sum_over_time is proportional to
// the pods too, not only the rate.
void write_traffic(const Cluster& cluster, std::int64_t end_s, double hours, unsigned step_s,
                   std::ostream& out);

}  // namespace netscore::testing::herd
