#include "extender/scoring_policy.h"

#include <algorithm>

#include "common/scoring.h"

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
  result.age_ns = now_mono_ns - result.meta.published_mono_ns;
  result.freshness = result.age_ns > max_age_ns ? Freshness::stale : Freshness::fresh;
  // A collector that keeps failing might still republish its last snapshot; what counts is how
  // long ago it last succeeded.
  shm::CollectorStatus status{};
  if (result.freshness == Freshness::fresh && table->read_status(status) == ReadStatus::ok &&
      status.consecutive_failures > 0 && now_mono_ns - status.last_success_mono_ns > max_age_ns) {
    result.freshness = Freshness::stale;
    result.age_ns = now_mono_ns - status.last_success_mono_ns;
  }
  return result;
}

bool corrected(const shm::SnapshotMeta& meta) noexcept {
  return (meta.flags & shm::kSnapshotCorrected) != 0;
}

void score_nodes(ScoringMode mode, int neutral, const Lookup& lookup,
                 std::span<const NodeScore> nodes, std::span<std::int64_t> out,
                 std::span<std::int16_t> percent) noexcept {
  const bool use_corrected = corrected(lookup.meta);
  const auto raw_score = [&](const NodeScore& n) {
    return use_corrected ? n.corrected_raw_score : n.raw_score;
  };
  const auto usable = [&](const NodeScore& n) { return n.found && n.valid && raw_score(n) >= 0; };
  std::int64_t max = 0;
  for (const auto& n : nodes) {
    if (usable(n)) max = std::max(max, raw_score(n));
  }
  for (std::size_t i = 0; i < nodes.size() && i < out.size() && i < percent.size(); ++i) {
    const NodeScore& n = nodes[i];
    if (lookup.freshness != Freshness::fresh || !usable(n)) {
      out[i] = neutral;
      percent[i] = -1;
      continue;
    }
    const std::int64_t p = mode == ScoringMode::request ? normalize_score(raw_score(n), max)
                           : use_corrected              ? n.corrected_node_score
                                                        : n.node_score;
    out[i] = to_extender_score(p);
    percent[i] = static_cast<std::int16_t>(p);
  }
}

}  // namespace netscore::extender
