#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/scheduler/freshness.h"
#include "extender/views/missing_nodes.h"
#include "extender/views/cluster_view.h"
#include "extender/views/metrics.h"

// The operator's views of the table: GET /table (JSON or text) and the table part of /metrics.
// Allocates freely (not the scheduler's path). Pure functions: thread-safe.
namespace netscore::extender {

struct TableView {
  bool attached = false;
  std::string attach_error;
  Freshness freshness = Freshness::detached;
  std::int64_t age_ns = 0;
  std::int64_t now_wall_ms = 0;
  shm::SnapshotMeta meta{};
  std::uint32_t capacity = 0;
  bool has_status = false;
  shm::CollectorStatus status{};
  std::int64_t heard_ns = -1;  // since the collector's latest refresh attempt ended; -1: never
  std::vector<TableRow> rows;
  std::vector<std::string> missing;  // asked about, absent from the current snapshot
  std::uint64_t missing_dropped = 0;
  std::string max_age;
  Normalisation normalisation = Normalisation::request;
  // meta carries shm::kSnapshotCorrected: prioritize uses the corrected fields
  bool corrected = false;
  ClusterMismatch cluster;
  std::int64_t watch_event_age_ns = -1;  // see watch_event_age_ns()
};

TableView read_table_view(const TableAttachment& table, const MissingNodes& missing,
                          const Config& config, std::int64_t now_mono_ns);
std::string render_table_json(const TableView& view);
std::string render_table_text(const TableView& view);

// "ok", "failing", "silent" (no refresh attempt ended for more than three refresh intervals: the
// collector is dead or hung, whatever its last result was) or "unknown" (no status yet).
std::string_view collector_state(const shm::CollectorStatus* status, std::int64_t heard_ns);

// The table's age and size, the collector's health and (collect_cluster_metrics) the Kubernetes
// side.
void collect_table_metrics(const ScoreTableReader* table, std::int64_t now_mono_ns,
                           MetricFamilies& out);

}  // namespace netscore::extender
