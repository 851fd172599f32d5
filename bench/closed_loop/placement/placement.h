#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/workload/workload.h"
#include "tests/support/scheduler_model.h"

// The policy core both closed-loop levels place pods with: what each policy knows of the cluster
// (pods bound per node, their true traffic once running, PodTopologySpread's siblings), the
// policies' choice of a node, and, in virtual time, kube-scheduler's default plugins and
// tie-break around the extender's answer (in real time kube-scheduler itself places the pods of
// kube-scheduler alone and of the netscore policies). Not thread-safe.
namespace netscore::sim {

class Placement {
 public:
  // The extender's scores 0..10 per node for a pod; nullopt when the call failed (the shipped
  // configuration's extender is ignorable: the default plugins alone then decide).
  using ExtenderScores = std::function<std::optional<std::vector<std::int64_t>>(std::uint32_t)>;

  Placement(const Trace& trace, const Policy& policy, const LoopParams& params);

  // Where a pod alive at t = 0 runs, the same for every policy: water-filling on true receive
  // traffic, or on utilisation when the nodes have link speeds (a cluster that ran for a while
  // would not keep the slow links full, and every policy would first pay for emptying them).
  std::size_t initial_node(std::uint32_t pod) const;
  // The policy's node for `pod`; `extender` is asked for the netscore policies only.
  std::size_t pick(std::uint32_t pod, const ExtenderScores& extender);

  void bind(std::uint32_t pod, std::size_t node);
  // The pod is deleted: its node (if it was bound) no longer counts it. node_of_pod keeps it.
  void remove(std::uint32_t pod);
  // The pod is evicted: as remove, and pending again (node_of_pod -1) until its replacement is
  // bound.
  void unbind(std::uint32_t pod);

  // Per pod, its node or -1 while pending.
  const std::vector<int>& node_of_pod() const { return node_of_pod_; }
  const std::vector<unsigned>& node_pods() const { return node_pods_; }
  bool with_speeds() const { return with_speeds_; }

 private:
  std::size_t least_utilised(double pod_receive, double pod_transmit) const;
  // informed_oracle's node for a pod created at `now_s`: the least traffic, each bound pod at its
  // true rate or the mean pod's as known then.
  std::size_t least_known_traffic(double now_s) const;
  // The pods bound per node that PodTopologySpread counts as the pod's siblings; all zero (the
  // empty owner's) for a pod its default constraints do not select.
  std::vector<unsigned>& same_set(std::uint32_t pod);

  const Trace& trace_;
  const Policy& policy_;
  std::size_t nodes_;
  std::int64_t extender_weight_;
  bool with_speeds_;
  // True traffic per node once every bound pod runs (the oracles' view), per direction.
  std::vector<double> bound_rate_, bound_transmit_;
  std::vector<unsigned> node_pods_;
  // Pods bound per node, per ReplicaSet (PodTopologySpread's view of the pod's siblings).
  std::unordered_map<std::string, std::vector<unsigned>> same_set_;
  std::vector<int> node_of_pod_;
  SchedulerModel scheduler_;
  // informed_oracle: the trace's mean pod's receive rate, when each pod's workload becomes
  // known, and which pods are bound now.
  double mean_pod_receive_ = 0;
  std::vector<double> known_at_s_;
  std::vector<char> bound_;
};

}  // namespace netscore::sim
