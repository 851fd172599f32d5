#include "extender/views/table_view.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/clock.h"
#include "common/model/prioritize.h"
#include "extender/views/cluster_view.h"
#include "extender/views/json_writer.h"
#include "extender/views/link_view.h"

namespace netscore::extender {
namespace {

void write_names(JsonWriter& j, std::string_view key, const std::vector<std::string>& names) {
  j.key(key);
  j.begin_array();
  for (const auto& name : names) j.value(name);
  j.end_array();
}

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

std::int64_t heard_ns(const shm::CollectorStatus& status, std::int64_t now_mono_ns) {
  return status.heartbeat_mono_ns > 0 ? now_mono_ns - status.heartbeat_mono_ns : -1;
}

// A percentage, or "-" when unknown.
// Idle links sit far below 0.1% of a 10 Gb/s NIC: two significant digits there, not "0.0".
std::string percent_or_dash(std::optional<double> fraction) {
  if (!fraction) return "-";
  const double percent = *fraction * 100;
  return percent >= 0.1 || percent == 0 ? fmt::format("{:.1f}", percent)
                                        : fmt::format("{:.2g}", percent);
}

constexpr MetricInfo kTableAttached{"netscore_extender_table_attached",
                                    "1 when the shared-memory score table is mapped.",
                                    MetricType::gauge};
constexpr MetricInfo kTableAge{"netscore_extender_table_age_seconds",
                               "Age of the snapshot being served (CLOCK_MONOTONIC).",
                               MetricType::gauge};
constexpr MetricInfo kTableNodes{"netscore_extender_table_nodes",
                                 "Nodes in the snapshot being served.", MetricType::gauge};
constexpr MetricInfo kTableOverflow{"netscore_extender_table_overflow_nodes",
                                    "Nodes the collector could not fit in the table.",
                                    MetricType::gauge};
constexpr MetricInfo kCollectorFailures{"netscore_extender_collector_consecutive_failures",
                                        "Collector refreshes failed in a row.", MetricType::gauge};
constexpr MetricInfo kCollectorFailuresTotal{"netscore_extender_collector_refresh_failures_total",
                                             "Collector refreshes that failed (from the table).",
                                             MetricType::counter};
constexpr MetricInfo kCollectorDuration{"netscore_extender_collector_refresh_duration_seconds",
                                        "Duration of the collector's last query.",
                                        MetricType::gauge};
constexpr MetricInfo kCollectorSideRequests{
    "netscore_extender_collector_side_requests_total",
    "Requests the collector asked apart from its refresh query (node-label layout, recording "
    "rules, link speeds).",
    MetricType::counter};
constexpr MetricInfo kCollectorSideRequestFailures{
    "netscore_extender_collector_side_request_failures_total",
    "Requests asked apart from the refresh query that got no usable answer.", MetricType::counter};
constexpr MetricInfo kCollectorRebalanceNominees{
    "netscore_extender_collector_rebalance_nominees",
    "Pods the collector labelled for the descheduler to evict at its latest look "
    "(NETSCORE_REBALANCE_LABEL).",
    MetricType::gauge};
constexpr MetricInfo kCollectorRebalancePatches{
    "netscore_extender_collector_rebalance_patches_total",
    "Label patches of pods the API server accepted (NETSCORE_REBALANCE_LABEL).",
    MetricType::counter};
constexpr MetricInfo kCollectorRebalancePatchFailures{
    "netscore_extender_collector_rebalance_patch_failures_total",
    "Label patches of pods that failed (a forbidden patch verb, an unreachable API server).",
    MetricType::counter};
constexpr MetricInfo kCollectorSpeedsTimestamp{
    "netscore_extender_collector_link_speeds_timestamp_seconds",
    "Evaluation time of the cached link speeds the collector scores with (Unix seconds).",
    MetricType::gauge};
constexpr MetricInfo kCollectorLastHeard{
    "netscore_extender_collector_last_heard_seconds",
    "Seconds since the collector's latest refresh attempt ended (success or failure).",
    MetricType::gauge};
constexpr MetricInfo kCollectorSilent{
    "netscore_extender_collector_silent",
    "1 when no collector refresh attempt ended for more than three refresh intervals.",
    MetricType::gauge};

}  // namespace

TableView read_table_view(const TableAttachment& table, const MissingNodes& missing,
                          const Config& config, std::int64_t now_mono_ns) {
  TableView v;
  v.attach_error = table.last_error();
  v.now_wall_ms = wall_now_ms();
  v.max_age = config.max_age.text;
  v.normalisation = config.extender.normalisation;
  v.missing_dropped = missing.dropped();
  const ScoreTableReader* reader = table.reader();
  v.attached = reader != nullptr;
  if (reader == nullptr) return v;
  v.capacity = reader->layout().capacity;
  v.has_status = reader->read_status(v.status) == ReadStatus::ok;
  if (v.has_status) v.heard_ns = heard_ns(v.status, now_mono_ns);
  // The same freshness decision the scoring path makes, then the rows of the latest snapshot.
  const Lookup lookup = lookup_nodes(reader, {}, {}, {}, now_mono_ns, max_age_ns(config));
  v.freshness = lookup.freshness;
  v.age_ns = lookup.age_ns;
  if (reader->read_all(v.rows, v.meta) != ReadStatus::ok) {
    // A read that kept meeting publishes leaves a torn meta: show nothing rather than mixed flags.
    v.rows.clear();
    v.meta = {};
  }
  v.corrected = model::corrected(v.meta);
  v.cluster = cluster_mismatch(v.rows, v.meta);
  if (v.has_status) v.watch_event_age_ns = watch_event_age_ns(v.status, now_mono_ns);
  std::unordered_set<std::string_view> present;
  for (const auto& row : v.rows) present.insert(row.name);
  for (auto& name : missing.names()) {
    if (!present.contains(name)) v.missing.push_back(std::move(name));
  }
  return v;
}

namespace {

void write_table_object(JsonWriter& j, const TableModel& m) {
  const TableView& v = m.read;
  j.key("table");
  j.begin_object();
  j.fields({{"attached", v.attached},
            {"attach_error", v.attach_error},
            {"state", m.state},
            {"age_seconds", m.age_seconds},
            {"max_age", v.max_age},
            {"normalisation", normalisation_name(v.normalisation)},
            {"publish_id", v.meta.publish_id},
            {"published_wall_ms", v.meta.published_wall_ms},
            {"eval_time_ms", v.meta.eval_time_ms},
            {"node_count", v.meta.node_count},
            {"valid_count", v.meta.valid_count},
            {"capacity", v.capacity},
            {"overflow", v.meta.overflow},
            {"rejected", v.meta.rejected},
            {"corrected", v.corrected}});
  write_link_summary(j, v.meta, m.links);
  j.end_object();
}

void write_collector_object(JsonWriter& j, const TableModel& m) {
  const shm::CollectorStatus& status = m.read.status;
  j.key("collector");
  j.begin_object();
  j.fields({{"status", m.collector},
            {"last_heard_seconds", m.heard_seconds.value_or(-1.0)},
            {"last_error", status.last_error},
            {"diagnosis", status.diagnosis},
            {"skipped_series", status.skipped_series},
            {"consecutive_failures", status.consecutive_failures},
            {"refreshes_total", status.refreshes_total},
            {"failures_total", status.failures_total},
            {"query_duration_seconds", m.query_duration_seconds},
            {"side_requests_total", status.side_requests_total},
            {"side_requests_failed_total", status.side_requests_failed_total},
            {"link_speeds_eval_wall_ms", status.link_speeds_eval_wall_ms},
            {"pod_traffic", shm::pod_traffic_state_name(status.pod_traffic_state)},
            {"pod_traffic_pods", status.pod_traffic_pods},
            {"pod_traffic_watched_pods", status.pod_traffic_watched},
            {"pod_traffic_eval_wall_ms", status.pod_traffic_eval_wall_ms},
            {"pod_traffic_recent_pods", status.pod_traffic_recent_pods},
            {"pod_traffic_recent_eval_wall_ms", status.pod_traffic_recent_eval_wall_ms},
            {"last_success_wall_ms", status.last_success_wall_ms},
            {"writer_pid", status.writer_pid}});
  j.end_object();
}

void write_watcher_object(JsonWriter& j, const TableModel& m) {
  const shm::CollectorStatus& status = m.read.status;
  j.key("watcher");
  j.begin_object();
  j.fields({{"state", shm::watch_state_name(status.watch_state)},
            {"synced_wall_ms", status.watch_synced_wall_ms},
            {"resource_version", status.watch_resource_version},
            {"last_event_wall_ms", status.watch_last_event_wall_ms},
            {"last_event_age_seconds", or_null(m.watch_event_age_seconds)},
            {"errors_total", status.watch_errors_total},
            {"relists_total", status.watch_relists_total},
            {"nodes", status.watch_nodes},
            {"pods", status.watch_pods},
            {"placements", status.watch_placements},
            {"error", status.watch_error}});
  j.end_object();
}

void write_cluster_object(JsonWriter& j, const TableView& v) {
  j.key("cluster");
  j.begin_object();
  j.fields({{"synced", v.cluster.known}, {"in_cluster_count", v.meta.in_cluster_count}});
  write_names(j, "nodes_without_series", v.cluster.nodes_without_series);
  write_names(j, "series_without_node", v.cluster.series_without_node);
  j.end_object();
}

JsonScalar text_or_null(std::optional<std::string_view> text) {
  return text ? JsonScalar(*text) : JsonScalar(nullptr);
}

void write_node_object(JsonWriter& j, const NodeRow& row) {
  const NodeScore& s = *row.score;
  j.begin_object();
  j.fields({{"name", row.name},
            {"raw", s.raw},
            {"raw_score", s.raw_score},
            {"score", s.node_score},
            {"extender_score", row.extender_score},
            {"sample_time_ms", s.sample_ms},
            {"sample_age_seconds", row.sample_age_seconds},
            {"valid", row.valid},
            {"has_series", row.has_series},
            {"in_cluster", row.in_cluster},
            {"rate", or_null(row.rate)},
            {"expected", s.expected},
            {"placed_pods", s.placed_pods},
            {"corrected_raw_score", s.corrected_raw_score},
            {"corrected_score", s.corrected_node_score},
            {"effective_score", row.effective_score},
            {"effective_extender_score", row.effective_extender_score},
            {"labels_known", row.labels_known},
            {"rule_mask", s.rule_mask}});
  write_priced_by(j, "expected_priced_by", s.flags);
  j.fields({{"raw_transmit", or_null(row.raw_transmit)},
            {"transmit_rate", or_null(row.transmit_rate)},
            {"speed", or_null(row.speed)},
            {"speed_source", text_or_null(row.speed_source)},
            {"speed_unusable", row.speed_unusable},
            {"receive_utilisation", or_null(row.receive_utilisation)},
            {"transmit_utilisation", or_null(row.transmit_utilisation)},
            {"basis", text_or_null(row.basis)},
            {"scored", s.scored}});
  j.end_object();
}

void write_names_line(std::string& out, std::string_view label,
                      const std::vector<std::string>& names) {
  fmt::format_to(std::back_inserter(out), "{} ({}):", label, names.size());
  for (const auto& name : names) fmt::format_to(std::back_inserter(out), " {}", name);
}

void write_text_header(std::string& out, const TableModel& m) {
  const TableView& v = m.read;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "table: {} attached={} age={:.1f}s max_age={} "
                 "nodes={} valid={} capacity={} overflow={} rejected={}\n",
                 m.state, v.attached, m.age_seconds, v.max_age, v.meta.node_count,
                 v.meta.valid_count, v.capacity, v.meta.overflow, v.meta.rejected);
  if (!v.attach_error.empty()) fmt::format_to(it, "attach error: {}\n", v.attach_error);
  fmt::format_to(it,
                 "collector: {}{} consecutive_failures={} query_duration={:.3f}s side_requests={} "
                 "side_request_failures={} last_error=\"{}\"\n",
                 m.collector,
                 m.collector == "silent"
                     ? fmt::format(" (not heard from for {:.0f}s)", m.heard_seconds.value_or(0))
                     : "",
                 v.status.consecutive_failures, m.query_duration_seconds,
                 v.status.side_requests_total, v.status.side_requests_failed_total,
                 v.status.last_error);
  if (v.status.diagnosis[0] != '\0') fmt::format_to(it, "diagnosis: {}\n", v.status.diagnosis);
  fmt::format_to(it, "missing nodes ({}{}):", v.missing.size(), v.missing_dropped ? "+" : "");
  for (const auto& name : v.missing) fmt::format_to(it, " {}", name);
  fmt::format_to(it,
                 "\nwatcher: {} resource_version=\"{}\" last_event_age={} errors={} relists={} "
                 "nodes={} pods={} placements={} error=\"{}\"\n",
                 shm::watch_state_name(v.status.watch_state), v.status.watch_resource_version,
                 m.watch_event_age_seconds ? fmt::format("{:.1f}s", *m.watch_event_age_seconds)
                                           : std::string("none"),
                 v.status.watch_errors_total, v.status.watch_relists_total, v.status.watch_nodes,
                 v.status.watch_pods, v.status.watch_placements, v.status.watch_error);
  fmt::format_to(it,
                 "scoring: basis={} direction={} nodes raw={} utilisation={}; speed measured={} "
                 "fallback={} none={} unusable={}\n",
                 score_basis_name(m.basis), direction_name(m.direction), m.links.raw,
                 m.links.utilisation, m.links.measured, m.links.fallback, m.links.none,
                 m.links.unusable);
  fmt::format_to(it, "correction: {}\n",
                 v.corrected ? "on (EFF = measured + expected traffic)" : "off (EFF = SCORE)");
  if (v.cluster.known) {
    write_names_line(out, "nodes without series", v.cluster.nodes_without_series);
    out += "\n";
    write_names_line(out, "series without node", v.cluster.series_without_node);
  } else {
    out += "cluster: not synced (nodes without series unknown)";
  }
  out += "\n\n";
}

std::string number_or_dash(std::optional<double> value) {
  return value ? fmt::format("{:.0f}", *value) : std::string("-");
}

void write_text_nodes(std::string& out, const TableModel& m) {
  auto it = std::back_inserter(out);
  std::size_t width = 4;
  for (const NodeRow& row : m.rows) width = std::max(width, row.name.size());
  const auto yes_no = [](bool b) { return b ? "yes" : "no"; };
  fmt::format_to(it,
                 "{:<{}}  {:>5}  {:>3}  {:>3}  {:>22}  {:>14}  {:>4}  {:>9}  {:<5}  {:<6}  {:<7}  "
                 "{:<11}  {:>14}  {:>7}  {:>7}  {:>14}\n",
                 "NODE", width, "SCORE", "EFF", "EXT", "RAW", "EXPECTED", "PODS", "AGE_S", "VALID",
                 "SERIES", "CLUSTER", "BASIS", "SPEED_B/S", "RX_UTIL", "TX_UTIL", "TX_RATE_B/S");
  for (const std::size_t i : m.ranked) {
    const NodeRow& row = m.rows[i];
    const NodeScore& s = *row.score;
    fmt::format_to(
        it,
        "{:<{}}  {:>5}  {:>3}  {:>3}  {:>22.0f}  {:>14.0f}  {:>4}  {:>9.1f}  {:<5}  {:<6}  {:<7}  "
        "{:<11}  {:>14}  {:>7}  {:>7}  {:>14}\n",
        row.name, width, s.node_score, row.effective_score, row.effective_extender_score, s.raw,
        s.expected, s.placed_pods, row.sample_age_seconds, yes_no(row.valid),
        yes_no(row.has_series), yes_no(row.in_cluster), row.basis.value_or("-"),
        number_or_dash(row.speed), percent_or_dash(row.receive_utilisation),
        percent_or_dash(row.transmit_utilisation), number_or_dash(row.transmit_rate));
  }
}

}  // namespace

std::string render_table_json(const TableView& v) {
  const TableModel m = model_table(v);
  JsonWriter j;
  j.begin_object();
  write_table_object(j, m);
  write_collector_object(j, m);
  write_watcher_object(j, m);
  write_cluster_object(j, v);
  write_names(j, "missing_nodes", v.missing);
  j.fields({{"missing_nodes_dropped", v.missing_dropped}});
  j.key("nodes");
  j.begin_array();
  for (const NodeRow& row : m.rows) write_node_object(j, row);
  j.end_array();
  j.end_object();
  return j.str();
}

std::string render_table_text(const TableView& v) {
  const TableModel m = model_table(v);
  std::string out;
  write_text_header(out, m);
  write_text_nodes(out, m);
  return out;
}

void collect_table_metrics(const ScoreTableReader* table, std::int64_t now_mono_ns,
                           MetricFamilies& out) {
  shm::SnapshotMeta meta{};
  shm::CollectorStatus status{};
  const bool has_snapshot = table != nullptr && table->lookup({}, {}, meta) == ReadStatus::ok;
  const bool has_status = table != nullptr && table->read_status(status) == ReadStatus::ok;
  out.add(kTableAttached, table != nullptr ? 1.0 : 0.0);
  if (has_snapshot) {
    out.add(kTableAge, seconds(now_mono_ns - meta.published_mono_ns));
    out.add(kTableNodes, static_cast<double>(meta.node_count));
    out.add(kTableOverflow, static_cast<double>(meta.overflow));
  }
  if (has_status) {
    out.add(kCollectorFailures, static_cast<double>(status.consecutive_failures));
    out.add(kCollectorFailuresTotal, static_cast<double>(status.failures_total));
    out.add(kCollectorDuration, static_cast<double>(status.query_duration_us) * 1e-6);
    out.add(kCollectorSideRequests, static_cast<double>(status.side_requests_total));
    out.add(kCollectorSideRequestFailures, static_cast<double>(status.side_requests_failed_total));
    out.add(kCollectorRebalanceNominees, static_cast<double>(status.rebalance_nominees));
    out.add(kCollectorRebalancePatches, static_cast<double>(status.rebalance_patches_total));
    out.add(kCollectorRebalancePatchFailures,
            static_cast<double>(status.rebalance_patch_failures_total));
    if (status.link_speeds_eval_wall_ms > 0)
      out.add(kCollectorSpeedsTimestamp,
              static_cast<double>(status.link_speeds_eval_wall_ms) / 1e3);
    if (status.heartbeat_mono_ns > 0)
      out.add(kCollectorLastHeard, seconds(heard_ns(status, now_mono_ns)));
    out.add(kCollectorSilent,
            collector_state(&status, heard_ns(status, now_mono_ns)) == "silent" ? 1.0 : 0.0);
  }
  // The link counts and the mismatch counts need every row; count from the rows' own (possibly
  // newer) snapshot.
  std::vector<TableRow> rows;
  shm::SnapshotMeta rows_meta{};
  const bool has_rows = has_snapshot && table->read_all(rows, rows_meta) == ReadStatus::ok;
  if (has_rows) collect_link_metrics(rows_meta, rows, out);
  collect_cluster_metrics(has_status ? &status : nullptr,
                          has_rows       ? &rows_meta
                          : has_snapshot ? &meta
                                         : nullptr,
                          has_rows ? &rows : nullptr, now_mono_ns, out);
}

}  // namespace netscore::extender
