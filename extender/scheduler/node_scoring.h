#pragma once

#include <cstdint>
#include <span>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/scheduler/freshness.h"

// Turns table rows into prioritize's answers. Pure functions over their arguments: thread-safe.
namespace netscore::extender {

// 0..10 per node. request: the plugin's NormalizeScore over the requested nodes' raw scores;
// range: the whole 0..100 between the least and the most loaded of them;
// cluster: the collector's cluster-wide node_score. Unknown or invalid nodes get `neutral`;
// anything but fresh gives every node `neutral`. `percent` (same length as `out`) receives the
// 0..100 score behind each answer, -1 where the answer is `neutral`.
// A snapshot flagged shm::kSnapshotCorrected is scored on measured + expected traffic
// (corrected_raw_score / corrected_node_score): pods bound since their traffic could reach the
// window count already, so a burst does not pile onto the nodes that look quietest. Without the
// flag the seed's raw_score / node_score, exactly as before the correction existed.
// `assumed[i]` (optional): pods recommended for node i moments ago whose bindings the table may not
// show yet; on a corrected snapshot each adds pod_price(node) to the node's traffic.
// `pod_rate`: bytes/s the pod being placed says it moves in the snapshot's direction (its
// expected-rate annotations, pod_rate_of()); 0 when it does not say. On a corrected snapshot a
// utilisation-scored node is compared with the pod on it: that rate over the node's speed, else
// four prices of an unknown pod.
void score_nodes(ScoringMode mode, int neutral, const Lookup& lookup,
                 std::span<const NodeScore> nodes, std::span<std::int64_t> out,
                 std::span<std::int16_t> percent, std::span<const std::uint32_t> assumed = {},
                 double pod_rate = 0) noexcept;

// The bytes/s a pod's netscore.io/expected-*-rate annotations give in `direction` (busier: the
// larger, or the one given); 0 when they give none.
double pod_rate_of(std::span<const KeyValue> annotations, Direction direction) noexcept;

// What one assumed pod of an unknown workload adds to the node's score integer: the snapshot's
// pod_price on the raw basis, utilisation_score(pod_rate / speed) for a utilisation-scored node.
std::int64_t pod_price(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept;

// Whether prioritize scores this snapshot on its corrected fields.
bool corrected(const shm::SnapshotMeta& meta) noexcept;

// The 0..100 score prioritize's cluster mode answers for the node: corrected when the snapshot is.
std::int64_t effective_node_score(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept;

}  // namespace netscore::extender
