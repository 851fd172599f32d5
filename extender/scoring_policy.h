#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/config.h"
#include "common/table/score_table_reader.h"

// Turns table rows into extender answers. Pure functions over their arguments: thread-safe.
namespace netscore::extender {

enum class Freshness { fresh, stale, empty, busy, detached };

std::string_view to_string(Freshness f);

struct Lookup {
  Freshness freshness = Freshness::detached;
  shm::SnapshotMeta meta{};
  std::int64_t age_ns = 0;  // now - published_mono_ns; meaningful when a snapshot was read
};

// Looks every name up in one consistent snapshot and decides freshness: no reader → detached,
// nothing published → empty, a read that kept meeting publishes → busy, snapshot older than
// max_age by CLOCK_MONOTONIC, or a collector failing since longer than max_age → stale. Only
// `fresh` data may steer a pod. `hashes` is empty or holds shm::name_hash of every name.
Lookup lookup_nodes(const ScoreTableReader* table, std::span<const std::string_view> names,
                    std::span<const std::uint64_t> hashes, std::span<NodeScore> out,
                    std::int64_t now_mono_ns, std::int64_t max_age_ns) noexcept;

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
// show yet; on a corrected snapshot each adds the snapshot's pod_price to the node's traffic.
void score_nodes(ScoringMode mode, int neutral, const Lookup& lookup,
                 std::span<const NodeScore> nodes, std::span<std::int64_t> out,
                 std::span<std::int16_t> percent,
                 std::span<const std::uint32_t> assumed = {}) noexcept;

// Whether prioritize scores this snapshot on its corrected fields.
bool corrected(const shm::SnapshotMeta& meta) noexcept;

}  // namespace netscore::extender
