#include "bench/closed_loop/placement/oracles.h"

#include <algorithm>
#include <cstddef>
#include <span>

namespace netscore::sim {

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
