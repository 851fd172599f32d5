#pragma once

#include <cstdint>
#include <string>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/views/metrics.h"
#include "extender/views/missing_nodes.h"
#include "extender/views/table_model.h"

// The operator's views of the table: GET /table (JSON or text) and the table part of /metrics.
// Allocates freely (not the scheduler's path). Pure functions: thread-safe.
namespace netscore::extender {

TableView read_table_view(const TableAttachment& table, const MissingNodes& missing,
                          const Config& config, std::int64_t now_mono_ns);
std::string render_table_json(const TableView& view);
std::string render_table_text(const TableView& view);

// The table's age and size, the collector's health and (collect_cluster_metrics) the Kubernetes
// side.
void collect_table_metrics(const ScoreTableReader* table, std::int64_t now_mono_ns,
                           MetricFamilies& out);

}  // namespace netscore::extender
