#include "bench/closed_loop/virtual_time/descheduler_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace netscore::sim {

std::vector<std::uint32_t> descheduler_cycle(const std::vector<double>& recorded,
                                             const std::vector<EvictablePod>& evictable,
                                             const DeschedulerSettings& settings) {
  std::vector<std::uint32_t> evicted;
  if (recorded.empty()) return evicted;
  std::vector<double> points(recorded.size());
  for (std::size_t n = 0; n < points.size(); ++n)
    points[n] = std::max(0.0, std::floor(recorded[n] * 100));
  const double mean =
      std::accumulate(points.begin(), points.end(), 0.0) / static_cast<double>(points.size());
  const double high = std::min(100.0, mean + settings.target_points);
  const double low = std::max(0.0, mean - settings.low_points);
  const auto under = static_cast<std::size_t>(
      std::count_if(points.begin(), points.end(), [&](double p) { return p <= low; }));
  if (under == 0 || under == points.size()) return evicted;
  std::vector<std::size_t> over;
  for (std::size_t n = 0; n < points.size(); ++n)
    if (points[n] > high) over.push_back(n);
  std::stable_sort(over.begin(), over.end(),
                   [&](std::size_t a, std::size_t b) { return points[a] > points[b]; });
  for (const std::size_t node : over) {
    if (evicted.size() == settings.max_per_cycle) break;
    // The informer's order, here the lowest pod index first.
    std::vector<std::uint32_t> on_node;
    for (const auto& pod : evictable)
      if (pod.node == node) on_node.push_back(pod.pod);
    std::sort(on_node.begin(), on_node.end());
    for (std::size_t i = 0; i < on_node.size() && i < settings.max_per_node; ++i) {
      if (evicted.size() == settings.max_per_cycle) break;
      evicted.push_back(on_node[i]);
    }
  }
  return evicted;
}

}  // namespace netscore::sim
