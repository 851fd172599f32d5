#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "extender/views/metrics.h"

// Names the scheduler asked about that the table lacked, for /table and /metrics. Written only
// when a fresh table misses a node, which a healthy cluster rarely does: one mutex is enough.
// Thread-safe.
namespace netscore::extender {

class MissingNodes {
 public:
  // At most kNames distinct names are kept; lookups of further ones are only counted (dropped()).
  static constexpr std::size_t kNames = 256;
  void add(std::string_view name);
  std::vector<std::string> names() const;  // sorted
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  // The distinct missing names: those kept plus the dropped lookups.
  void collect(MetricFamilies& out) const;

 private:
  mutable std::mutex mutex_;
  std::set<std::string, std::less<>> names_;
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace netscore::extender
