#include "bench/closed_loop/reports/results_table.h"

#include <string>
#include <vector>

#include <fmt/format.h>

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
