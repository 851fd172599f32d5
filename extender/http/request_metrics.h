#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/table/score_table_layout.h"
#include "extender/http/routes.h"
#include "extender/views/metrics.h"

namespace netscore::extender {

inline constexpr std::array<double, 16> kLatencyBuckets = {
    5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 300e-6, 500e-6,
    1e-3, 2e-3,  5e-3,  10e-3, 50e-3,  100e-3, 1.0,    5.0};
inline constexpr std::array<unsigned, 8> kCodes = {200, 400, 404, 405, 413, 431, 503, 500};

// Request counters and latency histograms. Each server thread writes only its own slot with
// relaxed atomics (no lock, no sharing of cache lines); a scrape sums every slot. Thread-safe.
class ServerMetrics {
 public:
  explicit ServerMetrics(unsigned threads);
  void record(unsigned thread, Verb verb, unsigned status, std::int64_t duration_ns) noexcept;
  void count_missing_lookups(unsigned thread, std::uint64_t n) noexcept;
  std::uint64_t missing_lookups() const noexcept;
  // The request counters and the latency histograms.
  void collect(MetricFamilies& out) const;
  void collect_missing_lookups(MetricFamilies& out) const;

 private:
  struct alignas(shm::kCacheLine) Slot {
    std::array<std::array<std::atomic<std::uint64_t>, kCodes.size()>, kVerbs> requests{};
    std::array<std::array<std::atomic<std::uint64_t>, kLatencyBuckets.size() + 1>, kVerbs>
        buckets{};
    std::array<std::atomic<std::uint64_t>, kVerbs> duration_ns{};
    std::atomic<std::uint64_t> missing_lookups{0};
  };
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace netscore::extender
