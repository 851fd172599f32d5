#pragma once

#include <cstdint>

// How many prices of an average pod (the snapshot's pod_price, or its rate over a node's speed)
// prioritize charges for pods it cannot measure yet. Tuned in the closed loop (bench/RESULTS.md),
// through the real kube-scheduler where it disagreed with the simulator; one place, so that the
// extender, the simulator and the tests charge the same.
namespace netscore::model {

// A pod of the same workload (the same controlling owner) recommended moments ago whose binding
// the table may not show yet. Its workload just started, nobody knows its traffic, and traffic
// per workload is heavy-tailed: k replicas on one node risk k times one unknown level. Twice the
// average keeps a burst off a node unless that node is quieter by more than two average pods
// (1x piled bursts onto the quietest nodes without PodTopologySpread; 4x and 8x spread them onto
// busy nodes).
inline constexpr std::int64_t kSiblingPodPrices = 2;

// Any other pod recommended moments ago (another workload's, or a pod without a controlling
// owner). kube-scheduler's own cache assumes every scheduled pod on its node until the binding is
// visible; without this, pods of different owners, or without one (CI runners, workflow pods),
// created together all see the same quietest node. Unrelated pods are not correlated, so one
// average pod each: what water-filling charges.
inline constexpr std::int64_t kOtherPodPrices = 1;

// The pod being placed, on a utilisation-scored node, when it does not say its own rate: four
// average pods over that node's speed. A slow link must keep room for a heavy pod, not an average
// one. Measured in the heterogeneous closed loop (a third of the links a tenth as fast): 1x left
// 13-64% of kube-scheduler's hot link-seconds over seeds 1-5, 2x 9-56%, 4x 5-51% at weight 1 and
// 0-16% at weight 3; on equal links it adds the same to every node.
inline constexpr std::int64_t kIncomingPodPrices = 4;

}  // namespace netscore::model
