#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace netscore::bench {

// Nearest-rank percentile; reorders v.
inline double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace netscore::bench
