#include "extender/http/request_metrics.h"

#include <algorithm>

namespace netscore::extender {
namespace {

constexpr MetricInfo kRequests{"netscore_extender_requests_total",
                               "HTTP requests answered, by verb and status code.",
                               MetricType::counter};
constexpr MetricInfo kRequestDuration{"netscore_extender_request_duration_seconds",
                                      "Time from a complete request to its response being written.",
                                      MetricType::histogram};
constexpr MetricInfo kMissingLookups{"netscore_extender_missing_node_lookups_total",
                                     "Requested nodes the fresh table did not contain.",
                                     MetricType::counter};

}  // namespace

ServerMetrics::ServerMetrics(unsigned threads) {
  for (unsigned i = 0; i < std::max(1U, threads); ++i) slots_.push_back(std::make_unique<Slot>());
}

void ServerMetrics::record(unsigned thread, Verb verb, unsigned status,
                           std::int64_t duration_ns) noexcept {
  Slot& s = *slots_[thread % slots_.size()];
  const auto v = static_cast<std::size_t>(verb);
  const auto code = std::find(kCodes.begin(), kCodes.end(), status);
  const auto c =
      static_cast<std::size_t>(code == kCodes.end() ? kCodes.size() - 1 : code - kCodes.begin());
  s.requests[v][c].fetch_add(1, std::memory_order_relaxed);
  const double seconds = static_cast<double>(duration_ns) * 1e-9;
  const auto b = static_cast<std::size_t>(
      std::lower_bound(kLatencyBuckets.begin(), kLatencyBuckets.end(), seconds) -
      kLatencyBuckets.begin());
  s.buckets[v][b].fetch_add(1, std::memory_order_relaxed);
  s.duration_ns[v].fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(0, duration_ns)),
                             std::memory_order_relaxed);
}

void ServerMetrics::count_missing_lookups(unsigned thread, std::uint64_t n) noexcept {
  slots_[thread % slots_.size()]->missing_lookups.fetch_add(n, std::memory_order_relaxed);
}

std::uint64_t ServerMetrics::missing_lookups() const noexcept {
  std::uint64_t total = 0;
  for (const auto& s : slots_) total += s->missing_lookups.load(std::memory_order_relaxed);
  return total;
}

void ServerMetrics::collect(MetricFamilies& out) const {
  MetricFamily& requests = out.add(kRequests);
  for (std::size_t v = 0; v < kVerbs; ++v) {
    for (std::size_t c = 0; c < kCodes.size(); ++c) {
      std::uint64_t n = 0;
      for (const auto& s : slots_) n += s->requests[v][c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      requests.samples.push_back(
          {{},
           {{"verb", std::string(to_string(Verb(v)))}, {"code", std::to_string(kCodes[c])}},
           n});
    }
  }
  MetricFamily& durations = out.add(kRequestDuration);
  for (std::size_t v = 0; v < kVerbs; ++v) {
    std::array<std::uint64_t, kLatencyBuckets.size() + 1> counts{};
    std::uint64_t sum_ns = 0;
    for (const auto& s : slots_) {
      sum_ns += s->duration_ns[v].load(std::memory_order_relaxed);
      for (std::size_t b = 0; b < counts.size(); ++b)
        counts[b] += s->buckets[v][b].load(std::memory_order_relaxed);
    }
    add_histogram(durations, {{"verb", std::string(to_string(Verb(v)))}}, kLatencyBuckets, counts,
                  static_cast<double>(sum_ns) * 1e-9);
  }
}

void ServerMetrics::collect_missing_lookups(MetricFamilies& out) const {
  out.add(kMissingLookups, static_cast<double>(missing_lookups()));
}

}  // namespace netscore::extender
