#pragma once

#include <cstdint>

// The model's tuning, in one place so that the collector, the extender, the simulator and the
// tests price the same. The prioritize side: how many prices of an average pod (the snapshot's
// pod_price, or its rate over a node's speed) prioritize charges for pods it cannot measure yet,
// tuned in the closed loop (bench/RESULTS.md), through the real kube-scheduler where it disagreed
// with the simulator. The collector side, at the end: where the average pod's price comes from.
namespace netscore::model {

// A pod of the same workload (the same controlling owner) recommended moments ago whose binding
// the table may not show yet. Its workload just started, nobody knows its traffic, and traffic
// per workload is heavy-tailed: k replicas on one node risk k times one unknown level. Twice the
// average keeps a burst off a node unless that node is quieter by more than two average pods
// (1x piled bursts onto the quietest nodes without PodTopologySpread; 4x and 8x spread them onto
// busy nodes).
inline constexpr std::int64_t kSiblingPodPrices = 2;

// A burst of pods without a controlling owner that share an app.kubernetes.io/name label (CI
// runners of one project, a workflow's steps) gets at most this many recommended to one node while
// others are usable: nothing else spreads them, and what prices them (their workload's learned or
// measured traffic per pod, else the average pod) is an estimate that k on one node multiply.
// Measured in the closed loop's labelled CI runners (seeds 1-6): hot node-seconds 2515 -> 1795,
// the most pods of a burst on one node 2.36 -> 1.70 on average; kube-scheduler alone is not
// involved. Pods with the label alone are capped, not those with only `app` or a generateName: a
// herd of identical pods with neither should still fill the quietest nodes (the herd test).
inline constexpr std::uint32_t kLabelledSiblingsPerNode = 2;

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

// A pod of a workload nothing is known of is priced at the pods' mean plus this many standard
// deviations between them (the mean plus deviations that Trimaran's LoadVariationRiskBalancing
// scores nodes by), the pods' own traffic where it is read, else their workloads' learned traffic
// and the traffic annotated pods declare: such pods come in bursts of one unknown workload whose
// traffic is correlated, and a node that takes several of them carries that risk several times
// over. At the mean alone the quietest nodes take a heavy burst together; with series, 2 measured
// best of 0 (the cluster's traffic per settled pod instead), 1, 2 and 3 over the benchmark's
// regimes; without them, the learned mean alone left bare bursts 1.9x the hot node-seconds of the
// hedged price (bench/results/regimes.md).
inline constexpr double kUnknownPodDeviations = 2.0;

// The measured traffic per pod (a node's measurement over its pods' settled parts, summed over the
// cluster) prices a pod once this many settled pods' worth of traffic is in the window: with less,
// the division by a fraction of a pod would charge every pod a multiple of its node's measurement.
inline constexpr double kSettledPodsToMeasure = 1.0;

// Workload learning (model/workload_learning) fits each node's rate in each direction as a
// background plus its pods' traffic per workload. Nodes measured for the first time together start
// from the line through their pods and rates (one background, one traffic per pod) when they hold
// different numbers of pods. A node measured for the first time alone, or among nodes all holding
// as many pods, starts with this part of its rate (beyond its annotated pods) given to its pods and
// the rest to its background, and a workload seen for the first time starts at the cluster's
// traffic per pod so derived; nothing tells the two apart before the pods spread over nodes with
// different backgrounds.
inline constexpr double kLearningStartPodShare = 0.5;

// The line through the nodes' pods and rates starts the fit only when the pods explain this part of
// the variance of the rates between nodes (R²): in the herd test's cluster, identical pods and
// nothing else, all of it; in the closed loop's heterogeneous scenario, where backgrounds and
// workloads differ far more than pod counts, next to none, and a slope so found priced pods at a
// fiftieth of their traffic (the busier direction's hot link-seconds on equal links rose 3x).
inline constexpr double kLearningStartFit = 0.5;

// Expectation-maximisation steps per measurement, each from the previous fit: the fit sharpens
// over measurements, so a few per measurement keep a publish cheap (O(pods) each).
inline constexpr int kLearningSteps = 4;

// Each step fits the last this many measurements together (ten: two and a half minutes at the
// default 15 s refresh, half the default window): a pod that moved, came or went between them
// separates its workload's traffic from its nodes' backgrounds. Without series, in the closed
// loop's churn regime, one measurement alone left peak/mean 0.11 over the oracle's (thirty seeds),
// ten 0.05; bench/results/regimes.md has the other regimes.
inline constexpr int kLearningMeasurements = 10;

// A workload's learned rate prices its pods once this many settled pods' worth of its traffic has
// been in a window (summed over its pods' held parts in one fit); until then they are priced as
// unknown, hedged. Without series, thirty seeds of eight regimes: 8, 4, 2 and 1 left the median
// peak/mean higher the later a workload was known (churn 1.430, 1.387, 1.348, 1.318); a half
// lowered it in five regimes by 0.003-0.022 and raised none by more than 0.002; a tenth left bare
// bursts more hot node-seconds than 1 (bench/results/regimes.md).
inline constexpr double kLearnedAfterPodsHeld = 0.5;

// A pod that declares a bandwidth ceiling (kubernetes.io/ingress-bandwidth, egress-bandwidth) and
// whose traffic nothing else prices is priced at this part of its ceiling in that direction: a
// shaped pod is sized for its bursts, and averages well below them over a window. Measured in the
// closed loop with every CI runner declaring ceilings 2-3, 2-8 or 4-16 times its traffic (unknown
// to the scorer, as it is in a cluster): half had the fewest hot node-seconds at 2-3 and 2-8 and
// 1.2-1.4x a quarter's at 4-16, where a quarter had 1.5-2.3x half's at 2-3; the whole ceiling
// did worse than half at every headroom. Any share left 28-75% of the average pod's.
inline constexpr double kCeilingPodShare = 0.5;

// A pod's own traffic over the window (the traffic per pod, model/placement_ledger) prices it once
// the window holds this part of its traffic: a rate over a window a pod was in for a moment is a
// few samples' increase scaled up many times.
inline constexpr double kMeasuredAfterHeld = 0.2;

}  // namespace netscore::model
