#include "common/model/prioritize.h"

#include <algorithm>
#include <vector>

#include "common/model/figures.h"
#include "common/model/normalise.h"
#include "common/model/pricing.h"
#include "common/model/scoring.h"

namespace netscore::model {
namespace {

// The pod being placed on a utilisation-scored node: its own rate when it says (it is known, so
// once), else kIncomingPodPrices prices of an unknown pod.
std::int64_t incoming_pod(const NodeScore& n, const SnapshotMeta& meta, double pod_rate) noexcept {
  if ((n.flags & kEntryUtilisation) == 0) return 0;
  if (pod_rate > 0) return n.speed > 0 ? utilisation_score(pod_rate / n.speed).value_or(0) : 0;
  return kIncomingPodPrices * pod_price(n, meta);
}

}  // namespace

std::int64_t pod_price(const NodeScore& n, const SnapshotMeta& meta) noexcept {
  if ((n.flags & kEntryUtilisation) == 0) return meta.pod_price;
  if (!(n.speed > 0)) return 0;
  return utilisation_score(meta.pod_rate / n.speed).value_or(0);
}

bool corrected(const SnapshotMeta& meta) noexcept {
  return (meta.flags & kSnapshotCorrected) != 0;
}

std::int64_t effective_node_score(const NodeScore& n, const SnapshotMeta& meta) noexcept {
  return corrected(meta) ? n.corrected_node_score : n.node_score;
}

void score_nodes(Normalisation normalisation, int neutral, const TableRead& table,
                 std::span<std::int64_t> out, std::span<std::int16_t> percent,
                 std::span<const std::uint32_t> assumed_prices, double pod_rate) noexcept {
  const auto nodes = table.nodes;
  const bool use_corrected = corrected(table.meta);
  const auto raw_score = [&](std::size_t i) {
    const NodeScore& n = nodes[i];
    if (!use_corrected) return n.raw_score;
    // A utilisation-scored node is compared as it would be with the pod: the same pod adds ten
    // times the utilisation to a link a tenth as fast, which an idle slow node's score alone
    // hides. On bytes the pod adds the same to every node, so the order would not change.
    const std::int64_t with_pod = incoming_pod(n, table.meta, pod_rate);
    const std::int64_t assumed =
        i < assumed_prices.size() ? static_cast<std::int64_t>(assumed_prices[i]) : 0;
    return n.corrected_raw_score + with_pod + assumed * pod_price(n, table.meta);
  };
  const std::size_t count = std::min({nodes.size(), out.size(), percent.size()});
  const auto scored = out.first(count);
  // Each node's score integer once, into `out`; -1 marks a node answered neutral.
  for (std::size_t i = 0; i < count; ++i)
    scored[i] = table.fresh && nodes[i].found && nodes[i].valid() ? raw_score(i) : -1;
  if (normalisation != Normalisation::cluster) normalise_per_basis(normalisation, nodes, scored);
  for (std::size_t i = 0; i < count; ++i) {
    if (scored[i] < 0) {
      out[i] = neutral;
      percent[i] = -1;
      continue;
    }
    const std::int64_t p = normalisation == Normalisation::cluster
                               ? effective_node_score(nodes[i], table.meta)
                               : scored[i];
    out[i] = to_extender_score(p);
    percent[i] = static_cast<std::int16_t>(p);
  }
}

std::size_t prioritize(const PrioritizeSettings& settings, const TableRead& table,
                       const PodToPlace& pod, std::int64_t now_ns, BurstMemory* memory,
                       std::span<std::int64_t> scores, std::span<std::int16_t> percent) {
  const bool spreading = memory != nullptr && settings.spread_window_ns > 0 && table.fresh &&
                         corrected(table.meta) && table.meta.pod_price > 0 &&
                         table.name_hashes.size() == table.nodes.size();
  if (!spreading) {
    score_nodes(settings.normalisation, settings.neutral, table, scores, percent, {}, pod.rate);
    return table.nodes.size();
  }
  std::vector<std::uint32_t> assumed(table.nodes.size());
  memory->assumed_prices(pod.owner, table.name_hashes, assumed, table.meta.published_mono_ns,
                         settings.spread_window_ns);
  score_nodes(settings.normalisation, settings.neutral, table, scores, percent, assumed, pod.rate);
  return memory->recommend(pod.owner, pod.uid, table.name_hashes, scores, percent, now_ns,
                           settings.spread_window_ns,
                           pod.owner_by_label ? kLabelledSiblingsPerNode : 0);
}

}  // namespace netscore::model
