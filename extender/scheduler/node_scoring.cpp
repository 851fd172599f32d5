#include "extender/scheduler/node_scoring.h"

#include <algorithm>
#include <array>
#include <limits>

#include "common/pod_annotations.h"
#include "common/quantity.h"
#include "common/scoring.h"
#include "extender/scheduler/protocol.h"

namespace netscore::extender {

// An assumed pod belongs to a workload that just started (its replicas are being scheduled now), so
// nobody knows its traffic yet, and traffic per workload is heavy-tailed: k replicas on one node
// risk k times one unknown level. Pricing each assumed pod at twice the average keeps a burst off
// a node unless that node is quieter by more than two average pods; measured in the closed loop
// (1x piled bursts onto the quietest nodes without PodTopologySpread; 4x and 8x spread them
// onto busy nodes).
constexpr std::int64_t kAssumedPodPrices = 2;

// The pod being placed, on a utilisation-scored node, at four average pods over that node's speed:
// per-deployment traffic is heavy-tailed, and a slow link must keep room for a heavy pod, not an
// average one. Measured in the heterogeneous closed loop (a third of the links a tenth as fast):
// 1x left 13-64% of kube-scheduler's hot link-seconds over seeds 1-5, 2x 9-56%, 4x 5-51% at
// weight 1 and 0-16% at weight 3; on equal links it adds the same to every node and still helped
// (hot link-seconds over seeds 1-3: 738 at 1x, 510 at 4x).
constexpr std::int64_t kIncomingPodPrices = 4;

std::int64_t pod_price(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept {
  if ((n.flags & shm::kEntryUtilisation) == 0) return meta.pod_price;
  if (!(n.speed > 0)) return 0;
  return utilisation_score(meta.pod_rate / n.speed).value_or(0);
}

namespace {

// The pod being placed on a utilisation-scored node: its own rate when it says (it is known, so
// once), else four prices of an unknown pod.
std::int64_t incoming_pod(const NodeScore& n, const shm::SnapshotMeta& meta,
                          double pod_rate) noexcept {
  if ((n.flags & shm::kEntryUtilisation) == 0) return 0;
  if (pod_rate > 0) return n.speed > 0 ? utilisation_score(pod_rate / n.speed).value_or(0) : 0;
  return kIncomingPodPrices * pod_price(n, meta);
}

}  // namespace

double pod_rate_of(std::span<const KeyValue> annotations, Direction direction) noexcept {
  const auto rate = [&](std::string_view key) -> std::optional<double> {
    const auto text = find_value(annotations, key);
    return text ? parse_quantity(*text) : std::nullopt;
  };
  return in_direction(direction, rate(kExpectedRateAnnotation),
                      rate(kExpectedTransmitRateAnnotation))
      .value_or(0);
}

bool corrected(const shm::SnapshotMeta& meta) noexcept {
  return (meta.flags & shm::kSnapshotCorrected) != 0;
}

std::int64_t effective_node_score(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept {
  return corrected(meta) ? n.corrected_node_score : n.node_score;
}

void score_nodes(ScoringMode mode, int neutral, const Lookup& lookup,
                 std::span<const NodeScore> nodes, std::span<std::int64_t> out,
                 std::span<std::int16_t> percent, std::span<const std::uint32_t> assumed,
                 double pod_rate) noexcept {
  const bool use_corrected = corrected(lookup.meta);
  const auto raw_score = [&](std::size_t i) {
    const NodeScore& n = nodes[i];
    if (!use_corrected) return n.raw_score;
    // A utilisation-scored node is compared as it would be with the pod: the same pod adds ten
    // times the utilisation to a link a tenth as fast, which an idle slow node's score alone
    // hides. On bytes the pod adds the same to every node, so the order would not change.
    const std::int64_t with_pod = incoming_pod(n, lookup.meta, pod_rate);
    const std::int64_t assumed_pods =
        i < assumed.size() ? static_cast<std::int64_t>(assumed[i]) * kAssumedPodPrices : 0;
    return n.corrected_raw_score + with_pod + assumed_pods * pod_price(n, lookup.meta);
  };
  // Per basis (bytes, utilisation): a node is only compared with nodes scored in its unit.
  const auto basis = [&](std::size_t i) {
    return (nodes[i].flags & shm::kEntryUtilisation) != 0 ? 1 : 0;
  };
  const std::size_t count = std::min({nodes.size(), out.size(), percent.size()});
  const bool fresh = lookup.freshness == Freshness::fresh;
  // Each node's score integer once, into `out`; -1 marks a node answered neutral.
  std::array<std::int64_t, 2> max{0, 0};
  std::array<std::int64_t, 2> min{std::numeric_limits<std::int64_t>::max(),
                                  std::numeric_limits<std::int64_t>::max()};
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = fresh && nodes[i].found && nodes[i].valid() ? raw_score(i) : -1;
    if (out[i] < 0) continue;
    max[basis(i)] = std::max(max[basis(i)], out[i]);
    min[basis(i)] = std::min(min[basis(i)], out[i]);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (out[i] < 0) {
      out[i] = neutral;
      percent[i] = -1;
      continue;
    }
    std::int64_t p = 0;
    switch (mode) {
      case ScoringMode::request:
        p = normalize_score(out[i], max[basis(i)]);
        break;
      case ScoringMode::range:
        p = normalize_score_range(out[i], min[basis(i)], max[basis(i)]);
        break;
      case ScoringMode::cluster:
        p = effective_node_score(nodes[i], lookup.meta);
        break;
    }
    out[i] = to_extender_score(p);
    percent[i] = static_cast<std::int16_t>(p);
  }
}

}  // namespace netscore::extender
