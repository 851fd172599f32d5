#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

// One cycle of kubernetes-sigs/descheduler v0.33's LowNodeUtilization as deploy/overlays/
// descheduler runs it, for the closed loop in virtual time: useDeviationThresholds on one
// MetricResource read from the recorded series the policy queries (value × 100, integer part), a
// node over mean + target_points gives up max_per_node evictable pods (evictionLimits.node; with a
// metric from Prometheus it cannot tell what a pod takes off, so it does not stop sooner), hottest
// first, at most max_per_cycle in all, and only while some node is at or below mean - low_points
// and not every node is. Not emulated: priority and QoS (every pod of the traces is alike), the
// informer's pod order (the lowest pod index goes first), PodDisruptionBudgets, and the time an
// eviction takes.
namespace netscore::sim {

struct DeschedulerSettings {
  double target_points = 10;       // targetThresholds
  double low_points = 0;           // thresholds
  std::uint32_t max_per_node = 1;  // evictionLimits.node
  std::size_t max_per_cycle = 5;   // maxNoOfPodsToEvictTotal
};

// A pod that DefaultEvictor would let go (its owner, age and, where the policy has one, the
// labelSelector are the caller's to check).
struct EvictablePod {
  std::uint32_t pod = 0;
  std::size_t node = 0;
};

// The pods this cycle evicts; `recorded`: the series' value per node, 0..1.
std::vector<std::uint32_t> descheduler_cycle(const std::vector<double>& recorded,
                                             const std::vector<EvictablePod>& evictable,
                                             const DeschedulerSettings& settings);

}  // namespace netscore::sim
