#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

// kube-scheduler v1.26's default profile as far as it tells nodes apart for identical pods (equal
// requests, no affinity, no taints): NodeResourcesFit LeastAllocated (weight 1),
// PodTopologySpread's system default constraint (hostname, maxSkew 3, ScheduleAnyway; weight 2)
// over the pods of the pod's ReplicaSet, an extender's 0..10 x weight x 10, and selectHost's
// uniformly random choice among the best totals. Both closed-loop levels schedule with it.
namespace netscore::sim {

class SchedulerModel {
 public:
  SchedulerModel(bool topology_spread, std::uint64_t tie_seed)
      : topology_spread_(topology_spread), ties_(tie_seed) {}

  // LeastAllocated for one more 100m / 256 MiB pod on a 4-CPU / 16 GiB node, 0..100.
  static std::int64_t least_allocated(unsigned pods_on_node);

  // Adds the default plugins' weighted scores: `pods` bound per node, `same_set` of them from the
  // pod's ReplicaSet (PodTopologySpread applies only when the scheduler finds that ReplicaSet).
  void add_default_plugins(std::span<const unsigned> pods, std::span<const unsigned> same_set,
                           std::span<std::int64_t> total) const;
  static void add_extender(std::span<const std::int64_t> scores, std::int64_t weight,
                           std::span<std::int64_t> total);
  // The node with the best total, ties broken uniformly at random (reservoir sampling).
  std::size_t select_host(std::span<const std::int64_t> total);

 private:
  bool topology_spread_;
  std::mt19937_64 ties_;
};

// Extender scores 0..10 from the busier direction's true utilisation of each node's bound
// traffic plus a pod of the given rates (bytes for a node without a speed), normalised as the
// extender's request mode does (range: as its range mode; full_scale > 0: 10 at utilisation 0
// down to 0 at full_scale and beyond, whatever the other nodes carry).
std::vector<std::int64_t> utilisation_scores(std::span<const double> receive,
                                             std::span<const double> transmit,
                                             std::span<const double> speed, double pod_receive,
                                             double pod_transmit, bool range, double full_scale);

// The utilisation oracle's node, shared by both levels: the one whose busier direction has the
// least utilisation once a pod of these true rates joins the node's bound traffic (bytes for a
// node without a speed); the first of equals.
std::size_t least_utilised(std::span<const double> receive, std::span<const double> transmit,
                           std::span<const double> speed, double pod_receive, double pod_transmit);

}  // namespace netscore::sim
