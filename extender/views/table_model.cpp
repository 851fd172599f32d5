#include "extender/views/table_model.h"

#include <algorithm>
#include <numeric>

#include "common/model/figures.h"
#include "common/model/prioritize.h"
#include "common/model/scoring.h"
#include "extender/scheduler/link_figures.h"

namespace netscore::extender {
namespace {

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

std::optional<double> flagged(const NodeScore& s, std::uint32_t flag, double value) {
  return (s.flags & flag) != 0 ? std::optional<double>(value) : std::nullopt;
}

NodeRow node_row(const TableRow& row, const TableView& read) {
  const NodeScore& s = row.score;
  const std::int64_t effective = model::effective_node_score(s, read.meta);
  const std::optional<double> speed = model::link_speed(s);
  return {.name = row.name,
          .score = &s,
          .valid = s.valid(),
          .has_series = (s.flags & shm::kEntryHasSeries) != 0,
          .in_cluster = (s.flags & shm::kEntryInCluster) != 0,
          .labels_known = (s.flags & shm::kEntryLabelsKnown) != 0,
          .speed_unusable = (s.flags & shm::kEntrySpeedUnusable) != 0,
          .extender_score = model::to_extender_score(s.node_score),
          .effective_score = effective,
          .effective_extender_score = model::to_extender_score(effective),
          .sample_age_seconds = static_cast<double>(read.now_wall_ms - s.sample_ms) * 1e-3,
          .rate = flagged(s, shm::kEntryRateValid, s.rate),
          .raw_transmit = flagged(s, shm::kEntryTransmitValid, s.raw_transmit),
          .transmit_rate = flagged(s, shm::kEntryTransmitRateValid, s.transmit_rate),
          .speed = speed,
          .speed_source = speed ? std::optional<std::string_view>(speed_source(s)) : std::nullopt,
          .receive_utilisation = model::receive_utilisation(s),
          .transmit_utilisation = model::transmit_utilisation(s),
          .basis = s.valid() ? std::optional<std::string_view>(score_basis_name(
                                   model::scored_on_utilisation(s) ? ScoreBasis::utilisation
                                                                   : ScoreBasis::raw))
                             : std::nullopt};
}

std::vector<std::size_t> ranked(const std::vector<NodeRow>& rows) {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (rows[a].valid != rows[b].valid) return rows[a].valid;
    return rows[a].effective_score > rows[b].effective_score;
  });
  return order;
}

}  // namespace

std::string_view collector_state(const shm::CollectorStatus* status, std::int64_t heard_ns) {
  if (status == nullptr) return "unknown";
  if (status->refresh_interval_ms > 0 && heard_ns > 3 * status->refresh_interval_ms * 1'000'000)
    return "silent";
  return status->consecutive_failures == 0 ? "ok" : "failing";
}

TableModel model_table(const TableView& read) {
  const shm::CollectorStatus* status = read.has_status ? &read.status : nullptr;
  TableModel m{
      .read = read,
      .state = to_string(read.freshness),
      .age_seconds = seconds(read.age_ns),
      .collector = collector_state(status, read.heard_ns),
      .collector_last_word = collector_state(status, -1),
      .heard_seconds =
          read.heard_ns < 0 ? std::nullopt : std::optional<double>(seconds(read.heard_ns)),
      .query_duration_seconds = static_cast<double>(read.status.query_duration_us) * 1e-6,
      .watch_event_age_seconds = read.watch_event_age_ns < 0
                                     ? std::nullopt
                                     : std::optional<double>(seconds(read.watch_event_age_ns)),
      .basis = snapshot_basis(read.meta),
      .direction = snapshot_direction(read.meta),
      .links = summarise_links(read.rows),
      .max_valid_raw = 0,
      .rows = {},
      .ranked = {}};
  m.rows.reserve(read.rows.size());
  for (const TableRow& row : read.rows) {
    m.rows.push_back(node_row(row, read));
    if (row.score.valid()) m.max_valid_raw = std::max(m.max_valid_raw, row.score.raw);
  }
  m.ranked = ranked(m.rows);
  return m;
}

}  // namespace netscore::extender
