#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

// What a descheduler did to a run: each eviction (when, which workload's pod, from which node)
// and where the pod's replacement landed, against which nodes were hot at each sample, so that
// the policies with a descheduler are compared on churn (evictions, re-evictions, evictions per
// node per cycle), on where replacements go (back to the node they left while it is still hot?)
// and on how soon an evicted-from node cools. Pure: the caller gives times and hotness.
namespace netscore::sim {

struct EvictionSummary {
  unsigned evictions = 0;
  // Evictions of a pod of a workload that had a pod evicted less than the window before; of
  // those, the evictions of the same pod again (its replacement).
  unsigned re_evictions = 0;
  unsigned pod_re_evictions = 0;
  // Evictions grouped into descheduling cycles; the most any node gave up in one cycle.
  unsigned cycles = 0;
  unsigned max_per_node_per_cycle = 0;
  // Replacements seen bound; of them, on the node their pod left, on a node hot when they landed,
  // and both.
  unsigned landed = 0, landed_back = 0, landed_hot = 0, landed_back_hot = 0;
  // Of landed_hot, those on a node hot for less than the unseen time when they landed (by the
  // samples, so up to one sample longer): no table could have shown it hot yet.
  unsigned landed_hot_unseen = 0;
  // Seconds from an eviction until its node was first sampled not hot (0 when it was not hot
  // then), averaged over evictions; those whose node stayed hot to the end count until the end
  // and are also counted in never_cooled.
  double mean_time_to_cool_s = 0;
  unsigned never_cooled = 0;
  // Node-seconds hot wherever the pods had run (unavoidably_hot_nodes at each sample): a bound
  // that no placement and no rebalancing goes under.
  double unavoidable_hot_node_s = 0;
};

class EvictionLog {
 public:
  // re_eviction_window_s: ten minutes scaled by the run's time scale; cycle_s: the descheduling
  // interval (evictions less than half of it after a cycle's first belong to that cycle);
  // unseen_s: how long a change of a node's traffic takes to reach the score table at the
  // soonest, a scrape interval and a refresh interval.
  EvictionLog(double re_eviction_window_s, double cycle_s, double unseen_s);

  void evicted(double t, std::uint32_t pod, std::uint32_t workload, std::size_t node);
  // The replacement of an evicted pod was bound at t; `hot`: its node was hot then.
  void landed(double t, std::uint32_t pod, std::size_t node, bool hot);
  // Per node, whether it is hot at t, and how many nodes would be hot wherever the pods ran; t
  // does not decrease between calls.
  void sample(double t, const std::vector<bool>& hot, std::size_t unavoidably_hot);

  EvictionSummary summary() const;

 private:
  struct Eviction {
    double t;
    std::uint32_t pod;
    std::uint32_t workload;
    std::size_t node;
    double cooled_t = -1;  // the first sample at or after t where the node was not hot
  };

  double window_s_, cycle_s_, unseen_s_;
  std::vector<Eviction> evictions_;
  std::map<std::uint32_t, std::size_t> awaiting_;  // pod -> its latest eviction, not yet landed
  // Per node, the first sample of its current spell hot; < 0: not hot at the latest sample.
  std::vector<double> hot_since_;
  unsigned landed_ = 0, landed_back_ = 0, landed_hot_ = 0, landed_back_hot_ = 0;
  unsigned landed_hot_unseen_ = 0;
  double last_sample_t_ = 0;
  double unavoidable_hot_node_s_ = 0;
};

// Per node, whether it is hot as the balance metrics count it: its receive rate above hot_factor
// times the cluster's mean.
std::vector<bool> hot_nodes(const std::vector<double>& receive, double hot_factor);

// How many nodes are hot wherever the running pods run: each pod whose own receive rate, on the
// node of the quietest background, is above hot_factor x the mean of `node_receive` makes one (at
// most every node), and the mean does not depend on where pods run. A lower bound for every
// policy, rebalancing or not.
std::size_t unavoidably_hot_nodes(const std::vector<double>& node_receive,
                                  const std::vector<double>& pod_receive,
                                  const std::vector<double>& background, double hot_factor);

// One line for a run's report.
std::string describe(const EvictionSummary& summary);

}  // namespace netscore::sim
