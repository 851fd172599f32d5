#include "extender/scheduler/node_scoring.h"

#include <algorithm>
#include <array>
#include <limits>

#include "common/scoring.h"

namespace netscore::extender {

// An assumed pod belongs to a workload that just started (its replicas are being scheduled now), so
// nobody knows its traffic yet, and traffic per workload is heavy-tailed: k replicas on one node
// risk k times one unknown level. Pricing each assumed pod at twice the average keeps a burst off
// a node unless that node is quieter by more than two average pods; measured in the closed loop
// (1x piled bursts onto the quietest nodes without PodTopologySpread; 4x and 8x spread them
// onto busy nodes).
constexpr std::int64_t kAssumedPodPrices = 2;

bool corrected(const shm::SnapshotMeta& meta) noexcept {
  return (meta.flags & shm::kSnapshotCorrected) != 0;
}

std::int64_t effective_node_score(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept {
  return corrected(meta) ? n.corrected_node_score : n.node_score;
}

void score_nodes(ScoringMode mode, int neutral, const Lookup& lookup,
                 std::span<const NodeScore> nodes, std::span<std::int64_t> out,
                 std::span<std::int16_t> percent, std::span<const std::uint32_t> assumed) noexcept {
  const bool use_corrected = corrected(lookup.meta);
  const auto raw_score = [&](std::size_t i) {
    const NodeScore& n = nodes[i];
    if (!use_corrected) return n.raw_score;
    const std::int64_t extra = i < assumed.size() ? static_cast<std::int64_t>(assumed[i]) *
                                                        kAssumedPodPrices * lookup.meta.pod_price
                                                  : 0;
    return n.corrected_raw_score + extra;
  };
  const auto usable = [&](std::size_t i) {
    return nodes[i].found && nodes[i].valid() && raw_score(i) >= 0;
  };
  // Per basis (bytes, utilisation): a node is only compared with nodes scored in its unit.
  const auto basis = [&](std::size_t i) {
    return (nodes[i].flags & shm::kEntryUtilisation) != 0 ? 1 : 0;
  };
  std::array<std::int64_t, 2> max{0, 0};
  std::array<std::int64_t, 2> min{std::numeric_limits<std::int64_t>::max(),
                                  std::numeric_limits<std::int64_t>::max()};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!usable(i)) continue;
    max[basis(i)] = std::max(max[basis(i)], raw_score(i));
    min[basis(i)] = std::min(min[basis(i)], raw_score(i));
  }
  for (std::size_t i = 0; i < nodes.size() && i < out.size() && i < percent.size(); ++i) {
    const NodeScore& n = nodes[i];
    if (lookup.freshness != Freshness::fresh || !usable(i)) {
      out[i] = neutral;
      percent[i] = -1;
      continue;
    }
    std::int64_t p = 0;
    switch (mode) {
      case ScoringMode::request:
        p = normalize_score(raw_score(i), max[basis(i)]);
        break;
      case ScoringMode::range:
        p = normalize_score_range(raw_score(i), min[basis(i)], max[basis(i)]);
        break;
      case ScoringMode::cluster:
        p = effective_node_score(n, lookup.meta);
        break;
    }
    out[i] = to_extender_score(p);
    percent[i] = static_cast<std::int16_t>(p);
  }
}

}  // namespace netscore::extender
