#include "extender/scheduler/freshness.h"

#include <algorithm>
#include <chrono>

#include <spdlog/fmt/fmt.h>

#include "common/model/freshness.h"

namespace netscore::extender {

std::string_view to_string(Freshness f) {
  switch (f) {
    case Freshness::fresh:
      return "fresh";
    case Freshness::stale:
      return "stale";
    case Freshness::empty:
      return "empty";
    case Freshness::busy:
      return "busy";
    case Freshness::detached:
      return "detached";
  }
  return "unknown";
}

Lookup lookup_nodes(const ScoreTableReader* table, std::span<const std::string_view> names,
                    std::span<const std::uint64_t> hashes, std::span<NodeScore> out,
                    std::int64_t now_mono_ns, std::int64_t max_age_ns) noexcept {
  Lookup result;
  // A successful lookup writes every entry; only the other outcomes must clear what a torn
  // attempt may have left.
  const auto clear = [&] { std::fill(out.begin(), out.end(), NodeScore{}); };
  if (table == nullptr) {
    clear();
    return result;
  }
  switch (table->lookup(names, hashes, out, result.meta)) {
    case ReadStatus::empty:
      clear();
      result.freshness = Freshness::empty;
      return result;
    case ReadStatus::busy:
      clear();
      result.freshness = Freshness::busy;
      return result;
    case ReadStatus::ok:
      break;
  }
  shm::CollectorStatus status{};
  const bool has_status = table->read_status(status) == ReadStatus::ok;
  const model::CollectorProgress progress{.consecutive_failures = status.consecutive_failures,
                                          .last_success_mono_ns = status.last_success_mono_ns};
  const model::SnapshotAge age = model::snapshot_age(
      result.meta.published_mono_ns, has_status ? &progress : nullptr, now_mono_ns, max_age_ns);
  result.freshness = age.fresh ? Freshness::fresh : Freshness::stale;
  result.age_ns = age.age_ns;
  return result;
}

std::int64_t max_age_ns(const Config& config) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(config.max_age.value).count();
}

std::string stale_for(std::int64_t age_ns, std::string_view limit) {
  return fmt::format("no successful refresh for {:.1f}s, over {}",
                     static_cast<double>(age_ns) * 1e-9, limit);
}

}  // namespace netscore::extender
