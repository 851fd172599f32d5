#include "bench/prometheus_text/histogram.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace netscore::prometheus_text {

std::vector<Bucket> buckets(const std::vector<Sample>& samples, std::string_view name,
                            const Labels& matchers) {
  const std::string series = std::string(name) + "_bucket";
  std::map<double, double> by_bound;
  for (const auto& s : samples) {
    if (s.name != series || !matches(s.labels, matchers)) continue;
    const auto le = s.labels.find("le");
    if (le == s.labels.end()) continue;
    if (const auto bound = number(le->second)) by_bound[*bound] += s.value;
  }
  std::vector<Bucket> out;
  for (const auto& [bound, cumulative] : by_bound)
    out.push_back({.upper_bound = bound, .cumulative = cumulative});
  return out;
}

std::optional<double> quantile(std::span<const Bucket> buckets, double q) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (std::isnan(q)) return std::nullopt;
  if (q < 0) return -kInf;
  if (q > 1) return kInf;
  if (buckets.size() < 2 || buckets.back().upper_bound != kInf) return std::nullopt;
  const double total = buckets.back().cumulative;
  if (total <= 0) return std::nullopt;
  const double rank = q * total;
  std::size_t b = 0;
  while (buckets[b].cumulative < rank) ++b;
  if (b == buckets.size() - 1) return buckets[b - 1].upper_bound;
  if (b == 0 && buckets[0].upper_bound <= 0) return buckets[0].upper_bound;
  const double lower = b == 0 ? 0 : buckets[b - 1].upper_bound;
  const double below = b == 0 ? 0 : buckets[b - 1].cumulative;
  const double in_bucket = buckets[b].cumulative - below;
  if (in_bucket <= 0) return lower;
  return lower + (buckets[b].upper_bound - lower) * ((rank - below) / in_bucket);
}

double observations(std::span<const Bucket> buckets) {
  return buckets.empty() ? 0 : buckets.back().cumulative;
}

}  // namespace netscore::prometheus_text
