#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"
#include "extender/views/metrics.h"

// What the table says about the Kubernetes side: the placement correction per node, nodes the
// cluster has that Prometheus has no series for (and the reverse), and the collector's API
// watcher. Shared by /table (every format) and /metrics. Pure functions: thread-safe.
namespace netscore::extender {

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

// The watcher's health and the correction/mismatch gauges. `status` / `meta` / `rows` are null
// when not read.
void collect_cluster_metrics(const shm::CollectorStatus* status, const shm::SnapshotMeta* meta,
                             const std::vector<TableRow>* rows, std::int64_t now_mono_ns,
                             MetricFamilies& out);

}  // namespace netscore::extender
