#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_layout.h"

namespace netscore::extender {

enum class Verb : std::uint8_t {
  filter,
  prioritize,
  table,
  healthz,
  readyz,
  metrics,
  explain,
  other
};
inline constexpr std::size_t kVerbs = 8;
std::string_view to_string(Verb v);

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
  // Appends the request families in Prometheus text exposition format 0.0.4.
  void render(std::string& out) const;
  std::uint64_t missing_lookups() const noexcept;

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

// Names the scheduler asked about that the table lacked, for /table. Bounded (kSlots names; later
// ones are only counted) and lock-free: a slot is claimed with one CAS, its name written once and
// then published with a release store, so readers see either nothing or the whole name.
// Thread-safe.
class MissingNodes {
 public:
  static constexpr std::size_t kSlots = 256;
  void add(std::string_view name) noexcept;
  std::vector<std::string> names() const;
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

 private:
  enum : std::uint32_t { kEmpty = 0, kWriting = 1, kReady = 2 };
  struct Slot {
    std::atomic<std::uint64_t> hash{0};
    std::atomic<std::uint32_t> state{kEmpty};
    std::uint32_t length = 0;
    char name[shm::kMaxNameBytes];
  };
  std::array<Slot, kSlots> slots_{};
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace netscore::extender
