#include "bench/closed_loop/reports/eviction_log.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace netscore::sim {

EvictionLog::EvictionLog(double re_eviction_window_s, double cycle_s, double unseen_s)
    : window_s_(re_eviction_window_s), cycle_s_(cycle_s), unseen_s_(unseen_s) {}

void EvictionLog::evicted(double t, std::uint32_t pod, std::uint32_t workload, std::size_t node) {
  awaiting_[pod] = evictions_.size();
  evictions_.push_back({.t = t, .pod = pod, .workload = workload, .node = node});
}

void EvictionLog::landed(double t, std::uint32_t pod, std::size_t node, bool hot) {
  const auto it = awaiting_.find(pod);
  if (it == awaiting_.end()) return;
  const bool back = evictions_[it->second].node == node;
  ++landed_;
  landed_back_ += back;
  landed_hot_ += hot;
  landed_back_hot_ += back && hot;
  if (hot) {
    const double since = node < hot_since_.size() ? hot_since_[node] : -1;
    landed_hot_unseen_ += since < 0 || t - since < unseen_s_;
  }
  awaiting_.erase(it);
}

void EvictionLog::sample(double t, const std::vector<bool>& hot, std::size_t unavoidably_hot) {
  unavoidable_hot_node_s_ += static_cast<double>(unavoidably_hot) * (t - last_sample_t_);
  last_sample_t_ = t;
  hot_since_.resize(hot.size(), -1);
  for (std::size_t n = 0; n < hot.size(); ++n) {
    if (!hot[n]) {
      hot_since_[n] = -1;
    } else if (hot_since_[n] < 0) {
      hot_since_[n] = t;
    }
  }
  for (auto& eviction : evictions_) {
    if (eviction.cooled_t < 0 && eviction.t <= t && eviction.node < hot.size() &&
        !hot[eviction.node])
      eviction.cooled_t = t;
  }
}

EvictionSummary EvictionLog::summary() const {
  EvictionSummary out;
  out.evictions = static_cast<unsigned>(evictions_.size());
  out.landed = landed_;
  out.landed_back = landed_back_;
  out.landed_hot = landed_hot_;
  out.landed_back_hot = landed_back_hot_;
  out.landed_hot_unseen = landed_hot_unseen_;
  out.unavoidable_hot_node_s = unavoidable_hot_node_s_;
  std::map<std::uint32_t, double> last_of_workload, last_of_pod;
  std::map<std::size_t, unsigned> this_cycle;  // node -> evictions in the current cycle
  double cycle_start = 0;
  double cool_total = 0;
  for (const auto& eviction : evictions_) {
    const auto last = last_of_workload.find(eviction.workload);
    if (last != last_of_workload.end() && eviction.t - last->second < window_s_) ++out.re_evictions;
    last_of_workload[eviction.workload] = eviction.t;
    const auto same_pod = last_of_pod.find(eviction.pod);
    if (same_pod != last_of_pod.end() && eviction.t - same_pod->second < window_s_)
      ++out.pod_re_evictions;
    last_of_pod[eviction.pod] = eviction.t;
    if (out.cycles == 0 || eviction.t - cycle_start >= cycle_s_ / 2) {
      ++out.cycles;
      cycle_start = eviction.t;
      this_cycle.clear();
    }
    out.max_per_node_per_cycle = std::max(out.max_per_node_per_cycle, ++this_cycle[eviction.node]);
    if (eviction.cooled_t >= 0) {
      cool_total += eviction.cooled_t - eviction.t;
    } else {
      ++out.never_cooled;
      cool_total += std::max(0.0, last_sample_t_ - eviction.t);
    }
  }
  if (!evictions_.empty())
    out.mean_time_to_cool_s = cool_total / static_cast<double>(evictions_.size());
  return out;
}

namespace {

// hot_factor x the mean of the nodes' receive rates; 0 without nodes.
double hot_line(const std::vector<double>& receive, double hot_factor) {
  if (receive.empty()) return 0;
  double total = 0;
  for (const double rate : receive) total += rate;
  return hot_factor * total / static_cast<double>(receive.size());
}

}  // namespace

std::vector<bool> hot_nodes(const std::vector<double>& receive, double hot_factor) {
  const double line = hot_line(receive, hot_factor);
  std::vector<bool> hot(receive.size());
  for (std::size_t n = 0; n < receive.size(); ++n) hot[n] = line > 0 && receive[n] > line;
  return hot;
}

std::size_t unavoidably_hot_nodes(const std::vector<double>& node_receive,
                                  const std::vector<double>& pod_receive,
                                  const std::vector<double>& background, double hot_factor) {
  if (node_receive.empty() || background.empty()) return 0;
  const double line = hot_line(node_receive, hot_factor);
  const double quietest = *std::min_element(background.begin(), background.end());
  std::size_t hot = 0;
  for (const double rate : pod_receive) hot += rate + quietest > line;
  return std::min(hot, node_receive.size());
}

std::string describe(const EvictionSummary& s) {
  return fmt::format(
      "{} evictions in {} cycles (at most {} per node per cycle), {} re-evictions of a workload "
      "within the window ({} of the same pod); {} replacements bound: {} back on the node they "
      "left ({} while it was hot), {} on a hot node ({} hot for less than a scrape and a "
      "refresh); {:.1f} s mean time to cool, {} evicted-from nodes never cooled; {:.0f} node-s "
      "hot wherever the pods had run",
      s.evictions, s.cycles, s.max_per_node_per_cycle, s.re_evictions, s.pod_re_evictions, s.landed,
      s.landed_back, s.landed_back_hot, s.landed_hot, s.landed_hot_unseen, s.mean_time_to_cool_s,
      s.never_cooled, s.unavoidable_hot_node_s);
}

}  // namespace netscore::sim
