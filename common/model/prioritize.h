#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/model/burst_memory.h"
#include "common/model/domain.h"
#include "common/model/table_records.h"

// The prioritize decision, written once: the extender answers kube-scheduler with it, the
// closed-loop simulator and the tests call it. Pure functions over their arguments (the burst
// memory is the caller's): no I/O, no clock, no lock.
namespace netscore::model {

// One consistent read of the table: the nodes asked about, in the order asked.
struct TableRead {
  bool fresh = false;  // only a fresh table may steer a pod; otherwise every node is neutral
  SnapshotMeta meta{};
  std::span<const NodeScore> nodes;
  std::span<const std::uint64_t> name_hashes;  // name_hash of each node's name
};

struct PodToPlace {
  // Who its burst siblings are: its controlling owner's uid, else (owner_by_label) the namespace
  // and the value of its app.kubernetes.io/name label, "namespace/label/value" as the collector
  // keys the workload; empty when it has neither.
  std::string_view owner;
  // owner is the label's: no controller spreads these pods (kube-scheduler's PodTopologySpread
  // defaults select through ReplicaSets, StatefulSets and Services), so prioritize recommends at
  // most kLabelledSiblingsPerNode of one burst to a node.
  bool owner_by_label = false;
  std::string_view uid;
  // Bytes/s the pod says it moves in the snapshot's direction (its expected-rate annotations);
  // 0 when it does not say.
  double rate = 0;
};

struct PrioritizeSettings {
  Normalisation normalisation = Normalisation::request;
  int neutral = 0;                    // the answer for a node the table cannot score
  std::int64_t spread_window_ns = 0;  // 0: no burst spreading
};

// 0..10 per node into `scores`, the 0..100 behind each into `percent` (-1 where neutral); both the
// size of table.nodes. With burst spreading (a window, a memory, a fresh corrected snapshot with a
// pod price) pods recommended moments ago count on their nodes and the best node becomes the
// only 10; returns its index, or nodes.size() when none was recommended.
std::size_t prioritize(const PrioritizeSettings& settings, const TableRead& table,
                       const PodToPlace& pod, std::int64_t now_ns, BurstMemory* memory,
                       std::span<std::int64_t> scores, std::span<std::int16_t> percent);

// 0..10 per node. request: the plugin's NormalizeScore over the requested nodes' raw scores;
// range: the whole 0..100 between the least and the most loaded of them; cluster: the collector's
// cluster-wide node_score. Unknown or invalid nodes get `neutral`; a table that is not fresh gives
// every node `neutral`. `percent` receives the 0..100 score behind each answer, -1 where the
// answer is `neutral`.
// A snapshot flagged kSnapshotCorrected is scored on measured + expected traffic
// (corrected_raw_score / corrected_node_score): pods bound since their traffic could reach the
// window count already. Without the flag the seed's raw_score / node_score, exactly.
// `assumed_prices[i]` (optional): average-pod prices of pods assumed on node i (BurstMemory); on
// a corrected snapshot each adds pod_price(node). On a corrected snapshot a utilisation-scored
// node is also compared with the pod being placed on it: its `pod_rate` over the node's speed,
// else kIncomingPodPrices prices of an unknown pod.
void score_nodes(Normalisation normalisation, int neutral, const TableRead& table,
                 std::span<std::int64_t> out, std::span<std::int16_t> percent,
                 std::span<const std::uint32_t> assumed_prices = {}, double pod_rate = 0) noexcept;

// What one average pod adds to the node's score integer: the snapshot's pod_price on the raw
// basis, utilisation_score(pod_rate / speed) for a utilisation-scored node.
std::int64_t pod_price(const NodeScore& n, const SnapshotMeta& meta) noexcept;

// Whether prioritize scores this snapshot on its corrected fields.
bool corrected(const SnapshotMeta& meta) noexcept;

// The 0..100 score prioritize's cluster mode answers for the node: corrected when the snapshot is.
std::int64_t effective_node_score(const NodeScore& n, const SnapshotMeta& meta) noexcept;

}  // namespace netscore::model
