#pragma once

// The words the model is configured in. The configuration (common/config.h) parses them from
// NETSCORE_* variables; the table stores basis and direction as their values.
namespace netscore::model {

enum class QueryFunction { sum_over_time, rate, increase };
// What a node's score measures. raw: the query's value in bytes (the plugin's); utilisation: the
// rate over the window divided by the node's link speed, so nodes with different NICs compare by
// how close each is to saturation.
enum class ScoreBasis { raw, utilisation };
// Which side of the link is scored; max: the larger of the two, the busier side (in the basis'
// unit).
enum class Direction { receive, transmit, max };
// How prioritize turns score integers into 0..10 (NETSCORE_NORMALISATION). request: the plugin's
// formula over the nodes of one request; range: the whole 0..10 between the least and the most
// loaded node of the request; cluster: the collector's cluster-wide scores.
enum class Normalisation { request, range, cluster };
// What the descheduler's thresholds are points (value × 100) of (NETSCORE_REBALANCE_UTILISATION).
// absolute: the link's utilisation, so fixed points around the mean: a quiet cluster's hottest
// node is few points over it and a busy cluster's coolest few under it. relative: the utilisation
// over twice the cluster's mean, at most 1: the mean sits at 50 points at every load level, each
// point a fiftieth of the mean, so thresholds act as ratios to it.
enum class RebalanceFigure { absolute, relative };
// When a workload's traffic per pod is fitted to the node rates (NETSCORE_LEARN_WORKLOADS). auto:
// only while no per-pod series are read, because a pod's measured traffic prices its workload
// better than a fit of node rates that cannot tell a node's background from its pods.
enum class WorkloadLearning { off, on, without_pod_traffic };

}  // namespace netscore::model
