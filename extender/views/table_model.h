#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/scheduler/freshness.h"
#include "extender/views/cluster_view.h"
#include "extender/views/link_view.h"

// What GET /table shows, once: the table read (`TableView`) and the figures every format of it
// (JSON, text, HTML) prints, worked out from that read in one place so the formats cannot disagree.
// Pure functions: thread-safe.
namespace netscore::extender {

// One read of the table and the collector's status, as the extender saw it.
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

// "ok", "failing", "silent" (no refresh attempt ended for more than three refresh intervals: the
// collector is dead or hung, whatever its last result was) or "unknown" (no status yet).
std::string_view collector_state(const shm::CollectorStatus* status, std::int64_t heard_ns);

// One node's row: its stored figures and what every format derives from them.
struct NodeRow {
  std::string_view name;
  const NodeScore* score = nullptr;  // the row of the read it was made from
  bool valid = false;
  bool has_series = false;
  bool in_cluster = false;
  bool labels_known = false;
  bool speed_unusable = false;
  std::int64_t extender_score = 0;  // of the seed score
  // What prioritize answers with: the corrected score when the snapshot is corrected.
  std::int64_t effective_score = 0;
  std::int64_t effective_extender_score = 0;
  double sample_age_seconds = 0;
  // Each nullopt when the snapshot does not know it.
  std::optional<double> rate;
  std::optional<double> raw_transmit;
  std::optional<double> transmit_rate;
  std::optional<double> speed;
  std::optional<std::string_view> speed_source;  // with a speed
  std::optional<double> receive_utilisation;
  std::optional<double> transmit_utilisation;
  std::optional<std::string_view> basis;  // what the node was scored on; nullopt when not scored
};

// The table read and its figures. Refers to the TableView it was made from, which must outlive it.
struct TableModel {
  const TableView& read;
  std::string_view state;
  double age_seconds = 0;
  // With silence (a collector not heard from for three refresh intervals), and without: a page
  // that reloads itself shows the collector's last word.
  std::string_view collector;
  std::string_view collector_last_word;
  std::optional<double> heard_seconds;  // nullopt: never heard from
  double query_duration_seconds = 0;
  std::optional<double> watch_event_age_seconds;  // nullopt: no event yet
  ScoreBasis basis = ScoreBasis::raw;
  Direction direction = Direction::receive;
  LinkSummary links;
  double max_valid_raw = 0;   // the largest raw figure among valid rows; 0 without one
  std::vector<NodeRow> rows;  // in the order of the read
  // Indices into `rows`, best first (the effective score, what prioritize answers), invalid rows
  // last.
  std::vector<std::size_t> ranked;
};

TableModel model_table(const TableView& read);

}  // namespace netscore::extender
