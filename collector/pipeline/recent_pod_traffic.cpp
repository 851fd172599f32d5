#include "collector/pipeline/recent_pod_traffic.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace netscore::collector {

std::int64_t unpriced_since_ms(const model::LoadWindow& full_read) {
  if (full_read.now_ms == 0) return std::numeric_limits<std::int64_t>::min();
  return full_read.now_ms - full_read.lag_ms - full_read.window_ms;
}

RecentSelection select_recent_pods(std::vector<model::PlacedPod> placed,
                                   const std::unordered_map<std::string, PodRates>& full_pods,
                                   const model::LoadWindow& full_read) {
  const auto priced = [&](const model::PlacedPod& pod) {
    return full_read.now_ms != 0 && full_pods.contains(pod.name) &&
           model::window_measures_pod(full_read.now_ms - pod.placed_ms, full_read);
  };
  std::erase_if(placed, priced);
  // Newest first, then by name: the same pods are asked in the same order.
  std::sort(placed.begin(), placed.end(), [](const model::PlacedPod& a, const model::PlacedPod& b) {
    return a.placed_ms != b.placed_ms ? a.placed_ms > b.placed_ms : a.name < b.name;
  });
  RecentSelection out;
  out.unpriced.reserve(placed.size());
  for (model::PlacedPod& pod : placed) out.unpriced.push_back(std::move(pod.name));
  const std::size_t asked = std::min(out.unpriced.size(), kMaxRecentPods);
  out.asked.assign(out.unpriced.begin(), out.unpriced.begin() + static_cast<std::ptrdiff_t>(asked));
  return out;
}

}  // namespace netscore::collector
