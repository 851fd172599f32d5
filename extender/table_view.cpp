#include "extender/table_view.h"

#include <algorithm>
#include <iterator>
#include <unordered_set>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/fmt/fmt.h>

#include "common/clock.h"
#include "common/scoring.h"

namespace netscore::extender {
namespace {

std::string_view view_collector_state(const TableView& v) {
  return collector_state(v.has_status ? &v.status : nullptr, v.heard_ns);
}

double seconds(std::int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

std::int64_t heard_ns(const shm::CollectorStatus& status, std::int64_t now_mono_ns) {
  return status.heartbeat_mono_ns > 0 ? now_mono_ns - status.heartbeat_mono_ns : -1;
}

}  // namespace

std::string_view collector_state(const shm::CollectorStatus* status, std::int64_t heard_ns) {
  if (status == nullptr) return "unknown";
  if (status->refresh_interval_ms > 0 && heard_ns > 3 * status->refresh_interval_ms * 1'000'000)
    return "silent";
  return status->consecutive_failures == 0 ? "ok" : "failing";
}

TableView read_table_view(const TableAttachment& table, const MissingNodes& missing,
                          const Config& config, std::int64_t now_mono_ns) {
  TableView v;
  v.attach_error = table.last_error();
  v.now_wall_ms = wall_now_ms();
  v.max_age = config.max_age.text;
  v.scoring = config.extender.scoring;
  v.missing_dropped = missing.dropped();
  const ScoreTableReader* reader = table.reader();
  v.attached = reader != nullptr;
  if (reader == nullptr) return v;
  v.capacity = reader->layout().capacity;
  v.has_status = reader->read_status(v.status) == ReadStatus::ok;
  if (v.has_status) v.heard_ns = heard_ns(v.status, now_mono_ns);
  const auto max_age_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(config.max_age.value).count();
  // The same freshness decision the scoring path makes, then the rows of the latest snapshot.
  const Lookup lookup = lookup_nodes(reader, {}, {}, {}, now_mono_ns, max_age_ns);
  v.freshness = lookup.freshness;
  v.age_ns = lookup.age_ns;
  if (reader->read_all(v.rows, v.meta) != ReadStatus::ok) {
    // A read that kept meeting publishes leaves a torn meta: show nothing rather than mixed flags.
    v.rows.clear();
    v.meta = {};
  }
  v.corrected = corrected(v.meta);
  v.cluster = cluster_mismatch(v.rows, v.meta);
  if (v.has_status) v.watch_event_age_ns = watch_event_age_ns(v.status, now_mono_ns);
  std::unordered_set<std::string_view> present;
  for (const auto& row : v.rows) present.insert(row.name);
  for (auto& name : missing.names()) {
    if (!present.contains(name)) v.missing.push_back(std::move(name));
  }
  return v;
}

std::string render_table_json(const TableView& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto str = [&](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("table");
  w.StartObject();
  w.Key("attached");
  w.Bool(v.attached);
  w.Key("attach_error");
  str(v.attach_error);
  w.Key("state");
  str(to_string(v.freshness));
  w.Key("age_seconds");
  w.Double(seconds(v.age_ns));
  w.Key("max_age");
  str(v.max_age);
  w.Key("scoring");
  str(scoring_mode_name(v.scoring));
  w.Key("publish_id");
  w.Uint64(v.meta.publish_id);
  w.Key("published_wall_ms");
  w.Int64(v.meta.published_wall_ms);
  w.Key("eval_time_ms");
  w.Int64(v.meta.eval_time_ms);
  w.Key("node_count");
  w.Uint(v.meta.node_count);
  w.Key("valid_count");
  w.Uint(v.meta.valid_count);
  w.Key("capacity");
  w.Uint(v.capacity);
  w.Key("overflow");
  w.Uint(v.meta.overflow);
  w.Key("rejected");
  w.Uint(v.meta.rejected);
  w.Key("corrected");
  w.Bool(v.corrected);
  w.EndObject();
  w.Key("collector");
  w.StartObject();
  w.Key("status");
  str(view_collector_state(v));
  w.Key("last_heard_seconds");
  w.Double(v.heard_ns < 0 ? -1.0 : seconds(v.heard_ns));
  w.Key("last_error");
  str(v.status.last_error);
  w.Key("diagnosis");
  str(v.status.diagnosis);
  w.Key("skipped_series");
  w.Uint(v.status.skipped_series);
  w.Key("consecutive_failures");
  w.Uint64(v.status.consecutive_failures);
  w.Key("refreshes_total");
  w.Uint64(v.status.refreshes_total);
  w.Key("failures_total");
  w.Uint64(v.status.failures_total);
  w.Key("query_duration_seconds");
  w.Double(static_cast<double>(v.status.query_duration_us) * 1e-6);
  w.Key("last_success_wall_ms");
  w.Int64(v.status.last_success_wall_ms);
  w.Key("writer_pid");
  w.Int64(v.status.writer_pid);
  w.EndObject();
  w.Key("watcher");
  w.StartObject();
  w.Key("state");
  str(shm::watch_state_name(v.status.watch_state));
  w.Key("synced_wall_ms");
  w.Int64(v.status.watch_synced_wall_ms);
  w.Key("resource_version");
  str(v.status.watch_resource_version);
  w.Key("last_event_wall_ms");
  w.Int64(v.status.watch_last_event_wall_ms);
  w.Key("last_event_age_seconds");
  if (v.watch_event_age_ns < 0) {
    w.Null();
  } else {
    w.Double(seconds(v.watch_event_age_ns));
  }
  w.Key("errors_total");
  w.Uint64(v.status.watch_errors_total);
  w.Key("relists_total");
  w.Uint64(v.status.watch_relists_total);
  w.Key("nodes");
  w.Uint(v.status.watch_nodes);
  w.Key("pods");
  w.Uint(v.status.watch_pods);
  w.Key("placements");
  w.Uint(v.status.watch_placements);
  w.Key("error");
  str(v.status.watch_error);
  w.EndObject();
  w.Key("cluster");
  w.StartObject();
  w.Key("synced");
  w.Bool(v.cluster.known);
  w.Key("in_cluster_count");
  w.Uint(v.meta.in_cluster_count);
  w.Key("nodes_without_series");
  w.StartArray();
  for (const auto& name : v.cluster.nodes_without_series) str(name);
  w.EndArray();
  w.Key("series_without_node");
  w.StartArray();
  for (const auto& name : v.cluster.series_without_node) str(name);
  w.EndArray();
  w.EndObject();
  w.Key("missing_nodes");
  w.StartArray();
  for (const auto& name : v.missing) str(name);
  w.EndArray();
  w.Key("missing_nodes_dropped");
  w.Uint64(v.missing_dropped);
  w.Key("nodes");
  w.StartArray();
  for (const auto& row : v.rows) {
    w.StartObject();
    w.Key("name");
    str(row.name);
    w.Key("raw");
    w.Double(row.score.raw);
    w.Key("raw_score");
    w.Int64(row.score.raw_score);
    w.Key("score");
    w.Int64(row.score.node_score);
    w.Key("extender_score");
    w.Int64(to_extender_score(row.score.node_score));
    w.Key("sample_time_ms");
    w.Int64(row.score.sample_ms);
    w.Key("sample_age_seconds");
    w.Double(static_cast<double>(v.now_wall_ms - row.score.sample_ms) * 1e-3);
    w.Key("valid");
    w.Bool(row.score.valid());
    const std::uint32_t flags = row.score.flags;
    w.Key("has_series");
    w.Bool((flags & shm::kEntryHasSeries) != 0);
    w.Key("in_cluster");
    w.Bool((flags & shm::kEntryInCluster) != 0);
    w.Key("rate");
    if ((flags & shm::kEntryRateValid) != 0) {
      w.Double(row.score.rate);
    } else {
      w.Null();
    }
    w.Key("expected");
    w.Double(row.score.expected);
    w.Key("placed_pods");
    w.Uint(row.score.placed_pods);
    w.Key("corrected_raw_score");
    w.Int64(row.score.corrected_raw_score);
    w.Key("corrected_score");
    w.Int64(row.score.corrected_node_score);
    const std::int64_t effective = effective_node_score(row.score, v.meta);
    w.Key("effective_score");
    w.Int64(effective);
    w.Key("effective_extender_score");
    w.Int64(to_extender_score(effective));
    w.Key("labels_known");
    w.Bool((flags & shm::kEntryLabelsKnown) != 0);
    w.Key("rule_mask");
    w.Uint64(row.score.rule_mask);
    w.Key("expected_priced_by");
    w.StartArray();
    for (const auto& [flag, name] : shm::kPricedBy) {
      if ((flags & flag) != 0) str(name);
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string render_table_text(const TableView& v) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(
      it,
      "table: {} attached={} age={:.1f}s max_age={} nodes={} valid={} capacity={} overflow={} "
      "rejected={}\n",
      to_string(v.freshness), v.attached, seconds(v.age_ns), v.max_age, v.meta.node_count,
      v.meta.valid_count, v.capacity, v.meta.overflow, v.meta.rejected);
  if (!v.attach_error.empty()) fmt::format_to(it, "attach error: {}\n", v.attach_error);
  fmt::format_to(
      it, "collector: {}{} consecutive_failures={} query_duration={:.3f}s last_error=\"{}\"\n",
      view_collector_state(v),
      view_collector_state(v) == "silent"
          ? fmt::format(" (not heard from for {:.0f}s)", seconds(v.heard_ns))
          : "",
      v.status.consecutive_failures, static_cast<double>(v.status.query_duration_us) * 1e-6,
      v.status.last_error);
  if (v.status.diagnosis[0] != '\0') fmt::format_to(it, "diagnosis: {}\n", v.status.diagnosis);
  fmt::format_to(it, "missing nodes ({}{}):", v.missing.size(), v.missing_dropped ? "+" : "");
  for (const auto& name : v.missing) fmt::format_to(it, " {}", name);
  fmt::format_to(it,
                 "\nwatcher: {} resource_version=\"{}\" last_event_age={} errors={} relists={} "
                 "nodes={} pods={} "
                 "placements={} error=\"{}\"\n",
                 shm::watch_state_name(v.status.watch_state), v.status.watch_resource_version,
                 v.watch_event_age_ns < 0 ? std::string("none")
                                          : fmt::format("{:.1f}s", seconds(v.watch_event_age_ns)),
                 v.status.watch_errors_total, v.status.watch_relists_total, v.status.watch_nodes,
                 v.status.watch_pods, v.status.watch_placements, v.status.watch_error);
  fmt::format_to(it, "correction: {}\n",
                 v.corrected ? "on (EFF = measured + expected traffic)" : "off (EFF = SCORE)");
  if (v.cluster.known) {
    fmt::format_to(it, "nodes without series ({}):", v.cluster.nodes_without_series.size());
    for (const auto& name : v.cluster.nodes_without_series) fmt::format_to(it, " {}", name);
    fmt::format_to(it, "\nseries without node ({}):", v.cluster.series_without_node.size());
    for (const auto& name : v.cluster.series_without_node) fmt::format_to(it, " {}", name);
  } else {
    out += "cluster: not synced (nodes without series unknown)";
  }
  out += "\n\n";
  std::vector<const TableRow*> sorted;
  std::size_t width = 4;
  for (const auto& row : v.rows) {
    sorted.push_back(&row);
    width = std::max(width, row.name.size());
  }
  // Best (highest effective score: what prioritize answers) first; invalid rows last.
  std::stable_sort(sorted.begin(), sorted.end(), [&](const TableRow* a, const TableRow* b) {
    if (a->score.valid() != b->score.valid()) return a->score.valid();
    return effective_node_score(a->score, v.meta) > effective_node_score(b->score, v.meta);
  });
  const auto yes_no = [](bool b) { return b ? "yes" : "no"; };
  fmt::format_to(it,
                 "{:<{}}  {:>5}  {:>3}  {:>3}  {:>22}  {:>14}  {:>4}  {:>9}  {:<5}  {:<6}  {}\n",
                 "NODE", width, "SCORE", "EFF", "EXT", "RAW", "EXPECTED", "PODS", "AGE_S", "VALID",
                 "SERIES", "CLUSTER");
  for (const TableRow* row : sorted) {
    const std::int64_t effective = effective_node_score(row->score, v.meta);
    fmt::format_to(
        it,
        "{:<{}}  {:>5}  {:>3}  {:>3}  {:>22.0f}  {:>14.0f}  {:>4}  {:>9.1f}  {:<5}  {:<6}  {}\n",
        row->name, width, row->score.node_score, effective, to_extender_score(effective),
        row->score.raw, row->score.expected, row->score.placed_pods,
        static_cast<double>(v.now_wall_ms - row->score.sample_ms) * 1e-3,
        yes_no(row->score.valid()), yes_no((row->score.flags & shm::kEntryHasSeries) != 0),
        yes_no((row->score.flags & shm::kEntryInCluster) != 0));
  }
  return out;
}

void render_table_metrics(const ScoreTableReader* table, std::int64_t now_mono_ns,
                          std::uint64_t missing_lookups, const MissingNodes& missing,
                          std::string& out) {
  auto it = std::back_inserter(out);
  shm::SnapshotMeta meta{};
  shm::CollectorStatus status{};
  const bool has_snapshot = table != nullptr && table->lookup({}, {}, meta) == ReadStatus::ok;
  const bool has_status = table != nullptr && table->read_status(status) == ReadStatus::ok;
  const auto gauge = [&](std::string_view name, std::string_view help, std::string_view type,
                         double value) {
    fmt::format_to(it, "# HELP {0} {1}\n# TYPE {0} {2}\n{0} {3}\n", name, help, type, value);
  };
  gauge("netscore_extender_table_attached", "1 when the shared-memory score table is mapped.",
        "gauge", table != nullptr ? 1 : 0);
  if (has_snapshot) {
    gauge("netscore_extender_table_age_seconds",
          "Age of the snapshot being served (CLOCK_MONOTONIC).", "gauge",
          seconds(now_mono_ns - meta.published_mono_ns));
    gauge("netscore_extender_table_nodes", "Nodes in the snapshot being served.", "gauge",
          meta.node_count);
    gauge("netscore_extender_table_overflow_nodes",
          "Nodes the collector could not fit in the table.", "gauge", meta.overflow);
  }
  if (has_status) {
    gauge("netscore_extender_collector_consecutive_failures",
          "Collector refreshes failed in a row.", "gauge",
          static_cast<double>(status.consecutive_failures));
    gauge("netscore_extender_collector_refresh_failures_total",
          "Collector refreshes that failed (from the table).", "counter",
          static_cast<double>(status.failures_total));
    gauge("netscore_extender_collector_refresh_duration_seconds",
          "Duration of the collector's last query.", "gauge",
          static_cast<double>(status.query_duration_us) * 1e-6);
    if (status.heartbeat_mono_ns > 0) {
      gauge("netscore_extender_collector_last_heard_seconds",
            "Seconds since the collector's latest refresh attempt ended (success or failure).",
            "gauge", seconds(heard_ns(status, now_mono_ns)));
    }
    gauge("netscore_extender_collector_silent",
          "1 when no collector refresh attempt ended for more than three refresh intervals.",
          "gauge", collector_state(&status, heard_ns(status, now_mono_ns)) == "silent" ? 1 : 0);
  }
  // The mismatch counts need every row; read only when the snapshot can have a mismatch, and
  // count from the rows' own (possibly newer) snapshot.
  std::vector<TableRow> rows;
  shm::SnapshotMeta rows_meta{};
  const bool has_rows = has_snapshot && (meta.flags & shm::kSnapshotClusterSynced) != 0 &&
                        table->read_all(rows, rows_meta) == ReadStatus::ok;
  render_cluster_metrics(has_status ? &status : nullptr,
                         has_rows       ? &rows_meta
                         : has_snapshot ? &meta
                                        : nullptr,
                         has_rows ? &rows : nullptr, now_mono_ns, out);
  gauge("netscore_extender_missing_node_lookups_total",
        "Requested nodes the fresh table did not contain.", "counter",
        static_cast<double>(missing_lookups));
  gauge("netscore_extender_missing_nodes",
        "Distinct requested nodes the table lacked (bounded set).", "gauge",
        static_cast<double>(missing.names().size() + missing.dropped()));
}

}  // namespace netscore::extender
