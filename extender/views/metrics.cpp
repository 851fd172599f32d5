#include "extender/views/metrics.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include <spdlog/fmt/fmt.h>

namespace netscore::extender {

std::string_view to_string(Verb v) {
  static constexpr std::array<std::string_view, kVerbs> kNames = {
      "filter", "prioritize", "table", "healthz", "readyz", "metrics", "explain", "other"};
  return kNames[static_cast<std::size_t>(v)];
}

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

void ServerMetrics::render(std::string& out) const {
  auto it = std::back_inserter(out);
  fmt::format_to(
      it,
      "# HELP netscore_extender_requests_total HTTP requests answered, by verb and status code.\n"
      "# TYPE netscore_extender_requests_total counter\n");
  for (std::size_t v = 0; v < kVerbs; ++v) {
    for (std::size_t c = 0; c < kCodes.size(); ++c) {
      std::uint64_t n = 0;
      for (const auto& s : slots_) n += s->requests[v][c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      fmt::format_to(it, "netscore_extender_requests_total{{verb=\"{}\",code=\"{}\"}} {}\n",
                     to_string(Verb(v)), kCodes[c], n);
    }
  }
  fmt::format_to(it,
                 "# HELP netscore_extender_request_duration_seconds Time from a complete request "
                 "to its response "
                 "being written.\n# TYPE netscore_extender_request_duration_seconds histogram\n");
  for (std::size_t v = 0; v < kVerbs; ++v) {
    const std::string_view verb = to_string(Verb(v));
    std::uint64_t cumulative = 0;
    std::uint64_t sum_ns = 0;
    for (const auto& s : slots_) sum_ns += s->duration_ns[v].load(std::memory_order_relaxed);
    for (std::size_t b = 0; b <= kLatencyBuckets.size(); ++b) {
      for (const auto& s : slots_) cumulative += s->buckets[v][b].load(std::memory_order_relaxed);
      if (b < kLatencyBuckets.size()) {
        fmt::format_to(
            it, "netscore_extender_request_duration_seconds_bucket{{verb=\"{}\",le=\"{}\"}} {}\n",
            verb, kLatencyBuckets[b], cumulative);
      } else {
        fmt::format_to(
            it, "netscore_extender_request_duration_seconds_bucket{{verb=\"{}\",le=\"+Inf\"}} {}\n",
            verb, cumulative);
      }
    }
    fmt::format_to(it, "netscore_extender_request_duration_seconds_sum{{verb=\"{}\"}} {}\n", verb,
                   static_cast<double>(sum_ns) * 1e-9);
    fmt::format_to(it, "netscore_extender_request_duration_seconds_count{{verb=\"{}\"}} {}\n", verb,
                   cumulative);
  }
}

void MissingNodes::add(std::string_view name) noexcept {
  if (name.empty() || name.size() > shm::kMaxNameBytes) return;
  const std::uint64_t hash = shm::name_hash(name);
  for (std::size_t probe = 0, pos = hash % kSlots; probe < kSlots;
       ++probe, pos = (pos + 1) % kSlots) {
    Slot& s = slots_[pos];
    std::uint64_t seen = s.hash.load(std::memory_order_acquire);
    if (seen == 0) {
      std::uint64_t expected = 0;
      if (s.hash.compare_exchange_strong(expected, hash, std::memory_order_acq_rel)) {
        s.state.store(kWriting, std::memory_order_relaxed);
        std::memcpy(s.name, name.data(), name.size());
        s.length = static_cast<std::uint32_t>(name.size());
        s.state.store(kReady, std::memory_order_release);
        return;
      }
      seen = expected;
    }
    if (seen != hash) continue;
    // Same hash: a slot still being written by another thread is treated as this name (a
    // duplicate in the list is harmless; a lost name is not worth a wait).
    if (s.state.load(std::memory_order_acquire) != kReady) return;
    if (std::string_view(s.name, s.length) == name) return;
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::string> MissingNodes::names() const {
  std::vector<std::string> out;
  for (const auto& s : slots_) {
    if (s.state.load(std::memory_order_acquire) == kReady) out.emplace_back(s.name, s.length);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace netscore::extender
