#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/model/domain.h"

// Which pod the descheduler should evict from a node whose link is over its target: the
// descheduler's LowNodeUtilization (v0.33, useDeviationThresholds on one MetricResource) decides
// which nodes are over-utilised but picks the pod by priority and QoS, which know nothing of
// traffic; it evicts only pods its DefaultEvictor's labelSelector matches, so the collector labels
// the pods to move off each over-target node, chosen here (pure: no I/O, no clock it is not given).
namespace netscore::model {

// The descheduler's policy as the nomination must mirror it.
struct RebalanceSettings {
  RebalanceFigure figure = RebalanceFigure::relative;
  // LowNodeUtilization's targetThresholds and thresholds, in points of the figure around its
  // mean: over-utilised above mean + target_points, under-utilised at or below mean - low_points.
  // Relative: over 1.44x the mean and at most the mean. The lower line only gates the descheduler
  // (no node under it, no eviction): a workload grown on a few nodes raises the mean so that the
  // others sit near it, and at 0.9x the gate stayed shut on those nodes' looks.
  double target_points = 22;
  double low_points = 0;
  // A node gets a nominee only once it is more than this many points over the over-utilised
  // threshold: on the relative figure 25 points, 1.5x the mean, where a node is hot. With deviation
  // thresholds an evenly loaded cluster's busiest nodes sit near the threshold, where an eviction
  // moves a pod for a point and the node stays where it was: in virtual time, with the lower line
  // at 0.9x the mean, 2 points of margin evicted on a trace without drift whose nodes were never
  // hot, and 3 on none such.
  double margin_points = 3;
  // DefaultEvictor's minPodAge: a younger pod is not evicted, so it is not nominated either (its
  // own traffic has not been measured yet, and a replacement is not moved again at once).
  std::int64_t min_pod_age_ms = 20 * 60 * 1000;
  // DefaultEvictor's minReplicas: a workload with fewer pods keeps them.
  std::uint32_t min_replicas = 2;
  // The share of a workload's pods nominated at once (at least one): what a Deployment's default
  // maxUnavailable lets a rollout take, so a workload that grew on several nodes gives up more
  // than one pod per cycle, never all of them.
  double max_workload_share = 0.25;
  // LowNodeUtilization's evictionLimits.node: the most pods one node gives up in one cycle. With a
  // metric from Prometheus the descheduler cannot tell what a pod takes off the node, so it evicts
  // that many of the evictable pods whatever they cool; the nomination stops sooner, once the node
  // would be back under the over-utilised threshold. Two: a node that a grown pod made hot sheds
  // the small pods around it twice as fast, and in the benchmark a third gained nothing more.
  std::uint32_t per_node = 2;
  // LowNodeUtilization's evictableNamespaces.exclude.
  std::vector<std::string> excluded_namespaces{"kube-system", "monitoring", "descheduler"};
};

// Per node name, the link load the figure is computed from: the rate over the link speed, above 1
// where the counters count more than the speed.
using NodeUtilisation = std::unordered_map<std::string, double>;

// The loads the figure is computed from, and the direction they were read in.
struct LinkLoads {
  NodeUtilisation by_node{};
  Direction direction = Direction::receive;
};

// The direction the figure reads each node's load in. The absolute figure and a configured receive
// or transmit: `configured`. The relative figure with max: the direction the cluster's traffic
// mostly goes, the one with the larger mean load over the nodes measured in it (receive on a tie or
// when no node measured transmit). The busier side of each node would hold one node's receive to a
// mean raised by another's transmit: a node that transmits as much as the others receive (a
// background none of its pods can move) lifts that mean, and a node hot by what it receives reads
// under the line.
Direction figure_direction(RebalanceFigure figure, Direction configured,
                           const NodeUtilisation& receive, const NodeUtilisation& transmit);

// Whether figure_direction chooses between the two directions (the relative figure with max), so
// that both directions' loads must be read; otherwise it is `configured`.
bool figure_chooses_direction(RebalanceFigure figure, Direction configured);

// Each node's figure (0..1) from the nodes' loads, as the recording rules compute it: absolute, the
// load clamped to [0, 1]; relative, each load over twice their mean, clamped, and every node at
// the mean, 0.5, without any traffic in the cluster.
std::vector<double> rebalance_figure(const std::vector<double>& utilisation,
                                     RebalanceFigure figure);

// A node as the descheduler's query reads it.
struct RebalanceNode {
  std::string name{};
  double utilisation = 0;  // the link's load in the busier direction (above 1: counted over speed)
  double speed = 0;        // link speed in bytes/s: what turns a pod's price into utilisation
  // It had a nominee at the labeler's last round (NominationMemory::mark_cooling): it counts as hot
  // down to the over-utilised threshold itself, not only margin_points over it.
  bool cooling = false;
};

// A bound pod and what the descheduler's evictor would make of it.
struct RebalancePod {
  std::string name{};               // "namespace/name"
  std::string node{};               // spec.nodeName
  std::string workload{};           // "namespace/Kind/name" of its controlling owner; empty: none
  std::uint32_t workload_pods = 0;  // running pods of that workload
  bool host_network = false;
  std::int64_t placed_ms = 0;  // when it started (the descheduler counts minPodAge from there)
  // Bytes/s in the direction its node's utilisation comes from; < 0: not known.
  double price = -1;
  // Its workload gave up a nominated pod recently: not moved twice in a row.
  bool resting = false;
};

struct Nominee {
  std::string pod{};   // "namespace/name"
  std::string node{};  // the node it cools
};

// Whether the evictor may evict `pod`, as far as the collector can tell: a pod of a Deployment,
// ReplicaSet or StatefulSet with min_replicas pods or more, off the host network, outside the
// excluded namespaces, at least min_pod_age_ms old at `now_ms`, and not resting.
bool rebalance_eligible(const RebalancePod& pod, const RebalanceSettings& settings,
                        std::int64_t now_ms);

// The over-utilised threshold the descheduler computes from these nodes, in points of the figure:
// the mean of each node's figure × 100 truncated to an integer (as its usage client reads a
// metric), plus target_points, at most 100. 0 without nodes.
double rebalance_target(const std::vector<RebalanceNode>& nodes, const RebalanceSettings& settings);

// At most per_node pods per node whose figure is above rebalance_target() + margin_points (above
// rebalance_target() alone for a `cooling` node), sorted by pod name; none at all when no node is
// under-utilised (the descheduler then evicts nothing).
// Per node, hottest first, among its eligible pods with a known price whose workload has not yet
// reached its share of nominees (max_workload_share of its pods, at least one) on hotter nodes: the
// cheapest whose move to the coolest node brings the node down to the target (by at least one
// point) without taking the coolest over it, else the one whose move leaves the busier of the two
// least busy, if that is below the node now and leaves not both more than margin_points over the
// threshold (that would make two hot nodes of one). A node without such a pod gets none. Each
// nominee's price is taken off its node and put on the coolest before the next choice, which is
// made only while the node stays hot by that line. Ties go to the lower name.
std::vector<Nominee> nominate_evictions(const std::vector<RebalanceNode>& nodes,
                                        const std::vector<RebalancePod>& pods,
                                        const RebalanceSettings& settings, std::int64_t now_ms);

// What the labeler remembers between its rounds: the pods it nominated, the nodes they cool, and
// the workloads that rest because a nominee left (evicted, most likely), so that the descheduler
// does not move a workload twice in a row.
class NominationMemory {
 public:
  explicit NominationMemory(std::int64_t rest_ms) : rest_ms_(rest_ms) {}

  // A nominee of the last round no longer among `pods` left: its workload rests from `now_ms` for
  // rest_ms. Sets `resting` on each pod of a resting workload.
  void mark_resting(std::vector<RebalancePod>& pods, std::int64_t now_ms);
  // This round's nominees (of `pods`) in place of the last round's.
  void remember(const std::vector<Nominee>& nominees, const std::vector<RebalancePod>& pods);
  // Sets `cooling` on each node a nominee of the last round was to cool. Hysteresis: a node that
  // began to give up pods above the hot line goes on down to the over-utilised threshold, where the
  // descheduler itself stops; otherwise its evictions stop as soon as it reads just under the line
  // and leave it at that edge, where one more small pod moved would have cooled it.
  void mark_cooling(std::vector<RebalanceNode>& nodes) const;

 private:
  std::int64_t rest_ms_;
  std::map<std::string, std::string> nominated_{};  // pod -> workload, as last nominated
  std::map<std::string, std::int64_t> resting_{};   // workload -> when its nominee left
  std::set<std::string> cooling_{};                 // nodes the last round's nominees cool
};

}  // namespace netscore::model
