#include "bench/closed_loop/scheduler_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/scoring.h"

namespace netscore::sim {
namespace {

constexpr std::int64_t kTopologySpreadWeight = 2;
constexpr std::int64_t kExtenderScale = kMaxNodeScore / kMaxExtenderScore;

}  // namespace

std::int64_t SchedulerModel::least_allocated(unsigned pods_on_node) {
  constexpr std::int64_t kCpu = 4000, kPodCpu = 100;
  constexpr std::int64_t kMem = std::int64_t{16} << 30, kPodMem = std::int64_t{256} << 20;
  const std::int64_t n = pods_on_node + 1;
  const auto free_part = [](std::int64_t capacity, std::int64_t used) {
    return used > capacity ? 0 : (capacity - used) * kMaxNodeScore / capacity;
  };
  return (free_part(kCpu, n * kPodCpu) + free_part(kMem, n * kPodMem)) / 2;
}

void SchedulerModel::add_default_plugins(std::span<const unsigned> pods,
                                         std::span<const unsigned> same_set,
                                         std::span<std::int64_t> total) const {
  const std::size_t nodes = total.size();
  for (std::size_t n = 0; n < nodes; ++n) total[n] += least_allocated(pods[n]);
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
    const std::int64_t score = hi == 0 ? kMaxNodeScore : kMaxNodeScore * (hi + lo - raw[n]) / hi;
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

std::vector<std::int64_t> utilisation_scores(std::span<const double> receive,
                                             std::span<const double> transmit,
                                             std::span<const double> speed, double pod_receive,
                                             double pod_transmit, bool range, double full_scale) {
  std::vector<std::int64_t> raw(receive.size()), out(receive.size());
  for (std::size_t n = 0; n < raw.size(); ++n) {
    const double busier = std::max(receive[n] + pod_receive, transmit[n] + pod_transmit);
    raw[n] = utilisation_score(speed[n] > 0 ? busier / speed[n] : busier).value_or(0);
  }
  if (full_scale > 0) {
    const auto cap = utilisation_score(full_scale).value_or(0);
    for (std::size_t n = 0; n < raw.size(); ++n) out[n] = normalize_score_range(raw[n], 0, cap);
  } else if (range && !raw.empty()) {
    const auto [min, max] = std::minmax_element(raw.begin(), raw.end());
    for (std::size_t n = 0; n < raw.size(); ++n) out[n] = normalize_score_range(raw[n], *min, *max);
  } else {
    normalize_scores(raw, out);
  }
  for (auto& score : out) score = to_extender_score(score);
  return out;
}

std::size_t least_utilised(std::span<const double> receive, std::span<const double> transmit,
                           std::span<const double> speed, double pod_receive, double pod_transmit) {
  const auto utilisation = [&](std::size_t n) {
    const double busier = std::max(receive[n] + pod_receive, transmit[n] + pod_transmit);
    return speed[n] > 0 ? busier / speed[n] : busier;
  };
  std::size_t best = 0;
  double least = utilisation(0);
  for (std::size_t n = 1; n < receive.size(); ++n) {
    const double u = utilisation(n);
    if (u < least) {
      best = n;
      least = u;
    }
  }
  return best;
}

}  // namespace netscore::sim
