#include "extender/views/table_html.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <optional>

#include <spdlog/fmt/fmt.h>

#include "common/markup_escape.h"
#include "extender/scheduler/freshness.h"

namespace netscore::extender {
namespace {

constexpr std::string_view kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d2330;background:#f6f7f9}
h1{font-size:1.3em;margin:0 0 .6em}
.banner{padding:.7em 1em;border-radius:6px;font-weight:600;margin-bottom:1em;color:#fff}
.fresh{background:#2e7d32}.stale{background:#e08a00}.empty{background:#6b7280}.busy{background:#6b7280}
.detached{background:#c62828}
.panel{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.7em 1em;margin-bottom:1em}
.panel h2{font-size:1em;margin:0 0 .4em}
.ok{color:#2e7d32;font-weight:600}.failing{color:#c62828;font-weight:600}.unknown{color:#6b7280;font-weight:600}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e7}
th,td{padding:.35em .6em;border-bottom:1px solid #eef0f3;text-align:left;white-space:nowrap}
th{background:#eef0f3;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{position:relative;width:180px;height:14px;background:#eef0f3;border-radius:3px;display:inline-block;vertical-align:middle}
.bar>span{position:absolute;left:0;top:0;bottom:0;border-radius:3px}
.score>span{background:#3b82f6}.traffic>span{background:#f59e0b}
tr.invalid td{color:#9ca3af}
.missing li{font-family:monospace}
.muted{color:#6b7280}
code{font-family:monospace;background:#eef0f3;padding:0 .25em;border-radius:3px}
)";

std::string esc(std::string_view s) {
  std::string out;
  append_markup_escaped(s, out);
  return out;
}

std::string bytes(double raw) {
  static constexpr std::string_view kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  while (raw >= 1024 && unit + 1 < std::size(kUnits)) {
    raw /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", raw, kUnits[unit]);
}

std::string percent_text(std::optional<double> fraction) {
  return fraction ? fmt::format("{:.1f}%", *fraction * 100) : std::string("-");
}

std::string banner_text(const TableModel& m) {
  const TableView& v = m.read;
  switch (v.freshness) {
    case Freshness::fresh:
      return fmt::format("Fresh: snapshot {:.1f}s old (max age {})", m.age_seconds, v.max_age);
    case Freshness::stale:
      return "Stale: " + stale_for(v.age_ns, "max age " + v.max_age) +
             "; every node gets the neutral score";
    case Freshness::empty:
      return "Empty: the collector has not published a snapshot yet";
    case Freshness::busy:
      return "Busy: every read met a concurrent publish; try again";
    case Freshness::detached:
      return "Detached: the score table is not mapped; every node gets the neutral score";
  }
  return "unknown";
}

void write_head(std::string& out, unsigned refresh_seconds) {
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  if (refresh_seconds > 0)
    fmt::format_to(std::back_inserter(out), "<meta http-equiv=\"refresh\" content=\"{}\">",
                   refresh_seconds);
  out += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">";
  out += "<title>netscore table</title><style>";
  out += kStyle;
  out += "</style></head><body>\n<h1>netscore score table</h1>\n";
}

void write_panels(std::string& out, const TableModel& m) {
  const TableView& v = m.read;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "<div id=\"state\" class=\"banner {0}\" data-state=\"{0}\">{1}</div>\n",
                 m.state, esc(banner_text(m)));
  if (!v.attach_error.empty()) {
    fmt::format_to(it,
                   "<div class=\"panel\" id=\"attach-error\">Attach error: <code>{}</code></div>\n",
                   esc(v.attach_error));
  }
  fmt::format_to(it,
                 "<div class=\"panel\" id=\"collector\"><h2>Collector</h2>"
                 "Status: <span class=\"{0}\" data-collector=\"{0}\">{0}</span>"
                 " &middot; consecutive failures {1} &middot; refreshes {2}"
                 " &middot; failures {3} &middot; last query {4:.3f}s"
                 " &middot; requests asked apart {5} ({6} failed)",
                 m.collector_last_word, v.status.consecutive_failures, v.status.refreshes_total,
                 v.status.failures_total, m.query_duration_seconds, v.status.side_requests_total,
                 v.status.side_requests_failed_total);
  if (v.status.last_error[0] != '\0') {
    fmt::format_to(it, "<br>Last error: <code id=\"collector-error\">{}</code>",
                   esc(v.status.last_error));
  }
  fmt::format_to(it,
                 "<br><span class=\"muted\">Snapshot {} &middot; {} nodes ({} valid) of capacity {}"
                 " &middot; overflow {} &middot; rejected {} &middot; scoring {}</span></div>\n",
                 v.meta.publish_id, v.meta.node_count, v.meta.valid_count, v.capacity,
                 v.meta.overflow, v.meta.rejected, normalisation_name(v.normalisation));
  if (!v.missing.empty() || v.missing_dropped != 0) {
    fmt::format_to(it,
                   "<div class=\"panel missing\" id=\"missing\">"
                   "<h2>Nodes asked about but missing from Prometheus ({}{})</h2><ul>",
                   v.missing.size(), v.missing_dropped != 0 ? "+" : "");
    for (const auto& name : v.missing) fmt::format_to(it, "<li>{}</li>", esc(name));
    out += "</ul></div>\n";
  }
}

std::string per_second_or_dash(std::optional<double> bytes_per_second) {
  return bytes_per_second ? esc(bytes(*bytes_per_second) + "/s") : std::string("-");
}

void write_node_tr(std::string& out, const NodeRow& row, double max_valid_raw) {
  const NodeScore& s = *row.score;
  const long score_pct = std::clamp<long>(static_cast<long>(s.node_score), 0, 100);
  const double traffic_pct =
      max_valid_raw > 0 && row.valid ? std::clamp(s.raw / max_valid_raw * 100.0, 0.0, 100.0) : 0.0;
  fmt::format_to(
      std::back_inserter(out),
      "<tr class=\"node{}\" data-node=\"{}\" data-score=\"{}\" data-effective-score=\"{}\">"
      "<td>{}</td>"
      "<td><span class=\"bar score\"><span style=\"width:{}%\"></span></span> {}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td><span class=\"bar traffic\"><span style=\"width:{:.1f}%\"></span></span></td>"
      "<td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{:.1f}s</td></tr>\n",
      row.valid ? "" : " invalid", esc(row.name), s.node_score, row.effective_score, esc(row.name),
      score_pct, row.valid ? std::to_string(s.node_score) : "invalid", row.effective_score,
      row.effective_extender_score, traffic_pct, esc(bytes(s.raw)), row.basis.value_or("-"),
      per_second_or_dash(row.speed), percent_text(row.receive_utilisation),
      percent_text(row.transmit_utilisation), per_second_or_dash(row.transmit_rate),
      row.sample_age_seconds);
}

// The nodes in the order the text view and prioritize use: the effective score, invalid rows last.
void write_nodes_table(std::string& out, const TableModel& m) {
  fmt::format_to(std::back_inserter(out),
                 "<p class=\"muted\" id=\"scoring\">Scored on {} in direction {}</p>\n",
                 score_basis_name(m.basis), direction_name(m.direction));
  out +=
      "<table id=\"nodes\"><thead><tr><th>Node</th><th>Score (0..100)</th>"
      "<th class=\"num\">Effective</th><th class=\"num\">Extender (0..10)</th><th>Traffic</th>"
      "<th class=\"num\">Raw</th><th>Basis</th><th class=\"num\">Speed</th>"
      "<th class=\"num\">Rx util</th><th class=\"num\">Tx util</th>"
      "<th class=\"num\">Tx rate</th><th class=\"num\">Sample age</th></tr></thead><tbody>\n";
  for (const std::size_t i : m.ranked) write_node_tr(out, m.rows[i], m.max_valid_raw);
  out += "</tbody></table>\n";
  if (m.rows.empty()) out += "<p class=\"muted\" id=\"no-nodes\">No nodes in the snapshot.</p>\n";
}

void write_footer(std::string& out, unsigned refresh_seconds) {
  out += "<p class=\"muted\">Also as <a href=\"?format=json\">JSON</a>";
  out += " and <a href=\"?format=text\">text</a>";
  if (refresh_seconds == 0)
    out += " &middot; <a href=\"?format=html&amp;refresh=10\">auto-refresh every 10s</a>";
  out += ".</p>\n</body></html>\n";
}

}  // namespace

bool prefers_html(std::string_view accept) {
  return accept.find("text/html") != std::string_view::npos;
}

std::string render_table_html(const TableView& v, unsigned refresh_seconds) {
  const TableModel m = model_table(v);
  std::string out;
  write_head(out, refresh_seconds);
  write_panels(out, m);
  write_nodes_table(out, m);
  write_footer(out, refresh_seconds);
  return out;
}

}  // namespace netscore::extender
