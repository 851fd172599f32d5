#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

// kube-scheduler v1.26's default profile as far as it tells nodes apart for identical pods (equal
// requests, no affinity, no taints, no images): NodeResourcesFit LeastAllocated (weight 1),
// NodeResourcesBalancedAllocation (weight 1), PodTopologySpread's system default constraint
// (hostname, maxSkew 3, ScheduleAnyway; weight 2) over the pod's siblings, an extender's 0..10 x
// weight x 10, and selectHost's uniformly random choice among the best totals; plus how many
// nodes it scores at all (numFeasibleNodesToFind). TaintToleration, NodeAffinity, InterPodAffinity
// and ImageLocality give every such node the same score and are left out. The one model the
// closed-loop simulators and the herd test schedule with.
namespace netscore::sim {

// Every node's allocatable and every pod's request, as the benchmarks' and tests' clusters
// declare them.
struct Resources {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
};
inline constexpr Resources kNodeAllocatable{4000, std::int64_t{16} << 30};
inline constexpr Resources kPodRequest{100, std::int64_t{256} << 20};

class SchedulerModel {
 public:
  SchedulerModel(bool topology_spread, std::uint64_t tie_seed)
      : topology_spread_(topology_spread), ties_(tie_seed) {}

  // NodeResourcesFit LeastAllocated for one more kPodRequest pod on a node already running
  // `pods_on_node` of them, 0..100, Go integer arithmetic (CPU and memory weighted 1 each).
  static std::int64_t least_allocated(unsigned pods_on_node);
  // NodeResourcesBalancedAllocation for the same: (1 - |cpu fraction - memory fraction| / 2) x
  // 100, truncated, the pod counted.
  static std::int64_t balanced_allocation(unsigned pods_on_node);
  // How many feasible nodes kube-scheduler looks for before it scores (percentageOfNodesToScore
  // unset): all below 100 nodes, else max(100, nodes x max(5, 50 - nodes / 125) / 100). The
  // extender only sees those.
  static std::size_t nodes_to_score(std::size_t nodes);

  // Adds the default plugins' weighted scores: `pods` bound per node, `same_set` of them the pod's
  // siblings that PodTopologySpread's default constraint selects (all zero for a pod it does not
  // select: a Job's, or one without an owner).
  void add_default_plugins(std::span<const unsigned> pods, std::span<const unsigned> same_set,
                           std::span<std::int64_t> total) const;
  // The extender's answers (0..10) as the framework adds them.
  static void add_extender(std::span<const std::int64_t> scores, std::int64_t weight,
                           std::span<std::int64_t> total);
  // The node with the best total, ties broken uniformly at random (reservoir sampling).
  std::size_t select_host(std::span<const std::int64_t> total);

 private:
  bool topology_spread_;
  std::mt19937_64 ties_;
};

}  // namespace netscore::sim
