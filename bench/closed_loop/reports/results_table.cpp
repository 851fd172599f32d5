#include "bench/closed_loop/reports/results_table.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/support/percentile.h"

namespace netscore::sim {

std::string results_table(const std::vector<RunResult>& results) {
  std::string out =
      "| policy | peak/mean | CV | p99 peak/mean | hot node-s | burst max on one node "
      "(mean, max) |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    out += fmt::format("| {} | {:.2f} | {:.3f} | {:.2f} | {:.1f} | {:.2f}, {} |\n", r.policy,
                       r.balance.peak_to_mean, r.balance.cv, r.balance.p99_peak_to_mean,
                       r.balance.hot_node_seconds, r.bursts.mean_max_on_one_node,
                       r.bursts.max_on_one_node);
  }
  return out;
}

std::string seeds_table(const std::vector<std::vector<RunResult>>& runs) {
  std::string out = fmt::format(
      "| policy ({} seeds) | hot node-s median | worst | all seeds | peak/mean median | worst |\n"
      "|---|---|---|---|---|---|\n",
      runs.size());
  if (runs.empty()) return out;
  for (std::size_t p = 0; p < runs.front().size(); ++p) {
    std::vector<double> hot, peak;
    for (const auto& seed : runs) {
      hot.push_back(seed[p].balance.hot_node_seconds);
      peak.push_back(seed[p].balance.peak_to_mean);
    }
    double total = 0;
    for (const double h : hot) total += h;
    // Nearest rank, so the lower median of an even count: a figure one seed had.
    const double hot_median = bench::percentile(hot, 0.5),
                 peak_median = bench::percentile(peak, 0.5);
    out +=
        fmt::format("| {} | {:.0f} | {:.0f} | {:.0f} | {:.3f} | {:.3f} |\n", runs.front()[p].policy,
                    hot_median, *std::max_element(hot.begin(), hot.end()), total, peak_median,
                    *std::max_element(peak.begin(), peak.end()));
  }
  return out;
}

std::string link_table(const std::vector<RunResult>& results) {
  std::string out =
      "| policy | hot link-s | saturated link-s | peak utilisation (mean, p99, max) | pods per "
      "node (slower, fastest links) |\n"
      "|---|---|---|---|---|\n";
  for (const auto& r : results) {
    out += fmt::format("| {} | {:.0f} | {:.0f} | {:.2f}, {:.2f}, {:.2f} | {:.1f}, {:.1f} |\n",
                       r.policy, r.balance.hot_link_seconds, r.balance.saturated_link_seconds,
                       r.balance.mean_peak_utilisation, r.balance.p99_peak_utilisation,
                       r.balance.max_utilisation, r.balance.pods_per_slow_node,
                       r.balance.pods_per_fast_node);
  }
  return out;
}

}  // namespace netscore::sim
