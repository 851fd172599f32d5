#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"

// What the table says about the Kubernetes side: the placement correction per node, nodes the
// cluster has that Prometheus has no series for (and the reverse), and the collector's API
// watcher. Shared by /table (every format) and /metrics. Pure functions: thread-safe.
namespace netscore::extender {

// The 0..100 score prioritize's cluster mode answers for the node: corrected when the snapshot is.
std::int64_t effective_node_score(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept;

struct ClusterMismatch {
  bool known = false;  // the snapshot is kSnapshotClusterSynced; both lists are empty otherwise
  std::vector<std::string> nodes_without_series;  // in the cluster, no Prometheus series
  std::vector<std::string> series_without_node;   // a series whose node the cluster does not have
};

// Sorted by name.
ClusterMismatch cluster_mismatch(std::span<const TableRow> rows, const shm::SnapshotMeta& meta);

// Nanoseconds since the watcher's latest event or bookmark; -1 when it has seen none.
std::int64_t watch_event_age_ns(const shm::CollectorStatus& status,
                                std::int64_t now_mono_ns) noexcept;

// Appends the watcher's health and the correction/mismatch gauges (Prometheus text format).
// `status` / `meta` / `rows` are null when not read.
void render_cluster_metrics(const shm::CollectorStatus* status, const shm::SnapshotMeta* meta,
                            const std::vector<TableRow>* rows, std::int64_t now_mono_ns,
                            std::string& out);

}  // namespace netscore::extender
