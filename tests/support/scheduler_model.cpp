#include "tests/support/scheduler_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/model/scoring.h"

namespace netscore::sim {
namespace {

constexpr std::int64_t kTopologySpreadWeight = 2;
constexpr std::int64_t kExtenderScale = model::kMaxNodeScore / model::kMaxExtenderScore;

}  // namespace

std::int64_t SchedulerModel::least_allocated(unsigned pods_on_node) {
  const std::int64_t n = pods_on_node + 1;
  const auto free_part = [](std::int64_t capacity, std::int64_t used) {
    return used > capacity ? 0 : (capacity - used) * model::kMaxNodeScore / capacity;
  };
  return (free_part(kNodeAllocatable.cpu_milli, n * kPodRequest.cpu_milli) +
          free_part(kNodeAllocatable.memory_bytes, n * kPodRequest.memory_bytes)) /
         2;
}

std::int64_t SchedulerModel::balanced_allocation(unsigned pods_on_node) {
  const double n = pods_on_node + 1;
  const auto fraction = [&](std::int64_t capacity, std::int64_t request) {
    return std::min(1.0, n * static_cast<double>(request) / static_cast<double>(capacity));
  };
  const double cpu = fraction(kNodeAllocatable.cpu_milli, kPodRequest.cpu_milli);
  const double memory = fraction(kNodeAllocatable.memory_bytes, kPodRequest.memory_bytes);
  return static_cast<std::int64_t>((1 - std::abs((cpu - memory) / 2)) *
                                   static_cast<double>(model::kMaxNodeScore));
}

std::size_t SchedulerModel::nodes_to_score(std::size_t nodes) {
  constexpr std::size_t kMinNodes = 100, kMinPercentage = 5;
  if (nodes < kMinNodes) return nodes;
  const std::size_t percentage =
      std::max<std::size_t>(kMinPercentage, 50 - std::min<std::size_t>(50, nodes / 125));
  return std::max(kMinNodes, nodes * percentage / 100);
}

void SchedulerModel::add_default_plugins(std::span<const unsigned> pods,
                                         std::span<const unsigned> same_set,
                                         std::span<std::int64_t> total) const {
  const std::size_t nodes = total.size();
  for (std::size_t n = 0; n < nodes; ++n)
    total[n] += least_allocated(pods[n]) + balanced_allocation(pods[n]);
  if (!topology_spread_) return;
  // Score: cnt x log(nodes + 2) + (maxSkew - 1), rounded; NormalizeScore: fewer matching pods
  // score higher, 100 x (max + min - score) / max.
  const double weight = std::log(static_cast<double>(nodes) + 2);
  std::vector<std::int64_t> raw(nodes);
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    raw[n] = std::llround(static_cast<double>(same_set[n]) * weight + 2);
    lo = std::min(lo, raw[n]);
    hi = std::max(hi, raw[n]);
  }
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::int64_t score =
        hi == 0 ? model::kMaxNodeScore : model::kMaxNodeScore * (hi + lo - raw[n]) / hi;
    total[n] += kTopologySpreadWeight * score;
  }
}

void SchedulerModel::add_extender(std::span<const std::int64_t> scores, std::int64_t weight,
                                  std::span<std::int64_t> total) {
  for (std::size_t n = 0; n < total.size() && n < scores.size(); ++n)
    total[n] += scores[n] * weight * kExtenderScale;
}

std::size_t SchedulerModel::select_host(std::span<const std::int64_t> total) {
  std::size_t best = 0, ties = 0;
  for (std::size_t n = 0; n < total.size(); ++n) {
    if (total[n] > total[best]) {
      best = n;
      ties = 1;
    } else if (total[n] == total[best] && ++ties > 1 && ties_() % ties == 0) {
      best = n;
    }
  }
  return best;
}

}  // namespace netscore::sim
