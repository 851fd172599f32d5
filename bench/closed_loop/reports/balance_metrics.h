#pragma once

#include <span>
#include <utility>
#include <vector>

#include "bench/closed_loop/workload/workload.h"

// How balanced the true node traffic stayed during a run, measured on the simulator's ground
// truth (not on what Prometheus showed the policy), so that policies are compared on outcome.
namespace netscore::sim {

struct BalanceMetrics {
  double peak_to_mean = 0;      // time average of max node rate / mean node rate
  double cv = 0;                // time average of population sd / mean across nodes
  double p99_peak_to_mean = 0;  // over time, nearest rank as bench/support/percentile.h
  double hot_node_seconds = 0;  // sum of dt x (nodes above hot_factor x the cluster mean)
  double seconds = 0;           // time covered
  // Links (node, direction) with a speed, on their true utilisation (true rate / speed), over
  // the instants of add_links: sum of dt x links above the hot utilisation, and above 1 (more
  // than the link carries); the highest link's utilisation averaged over time, its p99 over time
  // (nearest rank) and its maximum.
  double hot_link_seconds = 0;
  double saturated_link_seconds = 0;
  double mean_peak_utilisation = 0;
  double p99_peak_utilisation = 0;
  double max_utilisation = 0;
  // Pods per node over the instants of add_pods, time-averaged, on the nodes slower than the
  // fastest and on the fastest (0 where there are none).
  double pods_per_slow_node = 0;
  double pods_per_fast_node = 0;
};

// Takes the true per-node rates every dt seconds; every instant has the same number of nodes.
// Instants whose mean is not positive count in seconds but not in the ratios.
class BalanceRecorder {
 public:
  explicit BalanceRecorder(double dt, double hot_factor = 1.5, double hot_utilisation = 0.8);
  void add(std::span<const double> node_rates);
  // The same instant's links: per node its true receive and transmit rates and its speed (links
  // of a node whose speed is not positive are left out).
  void add_links(std::span<const double> receive, std::span<const double> transmit,
                 std::span<const double> speed);
  // The same instant's pods per node, against the nodes' speeds.
  void add_pods(std::span<const unsigned> pods, std::span<const double> speed);
  BalanceMetrics result() const;
  // (t, max/mean) moving-averaged over the trailing smooth_s seconds, for plots; t of the first
  // instant is 0.
  std::vector<std::pair<double, double>> peak_to_mean_series(double smooth_s) const;

 private:
  double dt_;
  double hot_factor_;
  std::vector<double> peak_to_mean_;  // per instant with a positive mean
  std::vector<double> times_;         // of those instants
  double cv_sum_ = 0;
  double hot_node_seconds_ = 0;
  std::size_t instants_ = 0;
  double hot_utilisation_;
  double hot_link_seconds_ = 0;
  double saturated_link_seconds_ = 0;
  std::vector<double> peak_utilisation_;  // per instant of add_links with a link
  // Node-instants and pods summed over them: [0] the slower nodes, [1] the fastest.
  double pod_node_instants_[2] = {0, 0};
  double pods_summed_[2] = {0, 0};
};

// Whether one burst of replicas landed on one node: for each burst (PodSpec::burst, whether its
// pods were created in one event or one by one) of >= 2 pods created during the run, the largest
// count of its pods on one node; the mean over those bursts and the max.
struct BurstSpread {
  double mean_max_on_one_node = 0;
  unsigned max_on_one_node = 0;
  unsigned bursts = 0;
};
// node_of_pod[pod id]: its node index, -1 if never placed. Unplaced pods are not counted, and a
// burst none of whose pods was placed is not one of the bursts.
BurstSpread burst_spread(const Trace& trace, std::span<const int> node_of_pod);

}  // namespace netscore::sim
