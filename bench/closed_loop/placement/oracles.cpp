#include "bench/closed_loop/placement/oracles.h"

#include <algorithm>

#include "common/model/scoring.h"

namespace netscore::sim {

std::vector<std::int64_t> utilisation_scores(std::span<const double> receive,
                                             std::span<const double> transmit,
                                             std::span<const double> speed, double pod_receive,
                                             double pod_transmit, bool range, double full_scale) {
  std::vector<std::int64_t> raw(receive.size()), out(receive.size());
  for (std::size_t n = 0; n < raw.size(); ++n) {
    const double busier = std::max(receive[n] + pod_receive, transmit[n] + pod_transmit);
    raw[n] = model::utilisation_score(speed[n] > 0 ? busier / speed[n] : busier).value_or(0);
  }
  if (full_scale > 0) {
    const auto cap = model::utilisation_score(full_scale).value_or(0);
    for (std::size_t n = 0; n < raw.size(); ++n)
      out[n] = model::normalise_score_range(raw[n], 0, cap);
  } else if (range && !raw.empty()) {
    const auto [min, max] = std::minmax_element(raw.begin(), raw.end());
    for (std::size_t n = 0; n < raw.size(); ++n)
      out[n] = model::normalise_score_range(raw[n], *min, *max);
  } else {
    model::normalise_scores(raw, out);
  }
  for (auto& score : out) score = model::to_extender_score(score);
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
