#pragma once

#include <span>
#include <utility>
#include <vector>

#include "bench/closed_loop/workload.h"

// How balanced the true node traffic stayed during a run, measured on the simulator's ground
// truth (not on what Prometheus showed the policy), so that policies are compared on outcome.
namespace netscore::sim {

struct BalanceMetrics {
  double peak_to_mean = 0;      // time average of max node rate / mean node rate
  double cv = 0;                // time average of population sd / mean across nodes
  double p99_peak_to_mean = 0;  // over time, nearest rank as bench/percentile.h
  double hot_node_seconds = 0;  // sum of dt x (nodes above hot_factor x the cluster mean)
  double seconds = 0;           // time covered
};

// Takes the true per-node rates every dt seconds; every instant has the same number of nodes.
// Instants whose mean is not positive count in seconds but not in the ratios.
class BalanceRecorder {
 public:
  explicit BalanceRecorder(double dt, double hot_factor = 1.5);
  void add(std::span<const double> node_rates);
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
};

// Whether one burst of replicas landed on one node: for each create event with >= 2 pods, the
// largest count of its pods on one node; the mean over those bursts and the max.
struct BurstSpread {
  double mean_max_on_one_node = 0;
  unsigned max_on_one_node = 0;
  unsigned bursts = 0;
};
// node_of_pod[pod id]: its node index, -1 if never placed. Unplaced pods are not counted, and a
// burst none of whose pods was placed is not one of the bursts.
BurstSpread burst_spread(const Trace& trace, std::span<const int> node_of_pod);

}  // namespace netscore::sim
