#include "extender/views/table_html.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include "common/markup_escape.h"
#include "common/model/scoring.h"
#include "common/model/figures.h"
#include "extender/scheduler/link_figures.h"
#include "common/model/prioritize.h"

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

std::string banner_text(const TableView& v) {
  const double age = static_cast<double>(v.age_ns) * 1e-9;
  switch (v.freshness) {
    case Freshness::fresh:
      return fmt::format("Fresh: snapshot {:.1f}s old (max age {})", age, v.max_age);
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

}  // namespace

bool prefers_html(std::string_view accept) {
  return accept.find("text/html") != std::string_view::npos;
}

std::string render_table_html(const TableView& v, unsigned refresh_seconds) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::string_view state = to_string(v.freshness);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  if (refresh_seconds > 0)
    fmt::format_to(it, "<meta http-equiv=\"refresh\" content=\"{}\">", refresh_seconds);
  out += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">";
  out += "<title>netscore table</title><style>";
  out += kStyle;
  out += "</style></head><body>\n<h1>netscore score table</h1>\n";
  fmt::format_to(it, "<div id=\"state\" class=\"banner {0}\" data-state=\"{0}\">{1}</div>\n", state,
                 esc(banner_text(v)));
  if (!v.attach_error.empty()) {
    fmt::format_to(it,
                   "<div class=\"panel\" id=\"attach-error\">Attach error: <code>{}</code></div>\n",
                   esc(v.attach_error));
  }

  // The page names no silence (heard -1): its reload shows the collector's last word.
  const std::string_view collector = collector_state(v.has_status ? &v.status : nullptr, -1);
  fmt::format_to(it,
                 "<div class=\"panel\" id=\"collector\"><h2>Collector</h2>"
                 "Status: <span class=\"{0}\" data-collector=\"{0}\">{0}</span>"
                 " &middot; consecutive failures {1} &middot; refreshes {2}"
                 " &middot; failures {3} &middot; last query {4:.3f}s"
                 " &middot; requests asked apart {5} ({6} failed)",
                 collector, v.status.consecutive_failures, v.status.refreshes_total,
                 v.status.failures_total, static_cast<double>(v.status.query_duration_us) * 1e-6,
                 v.status.side_requests_total, v.status.side_requests_failed_total);
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

  std::vector<const TableRow*> sorted;
  double max_raw = 0;
  for (const auto& row : v.rows) {
    sorted.push_back(&row);
    if (row.score.valid()) max_raw = std::max(max_raw, row.score.raw);
  }
  // The order the text view and prioritize use: the effective score, invalid rows last.
  std::stable_sort(sorted.begin(), sorted.end(), [&](const TableRow* a, const TableRow* b) {
    if (a->score.valid() != b->score.valid()) return a->score.valid();
    return model::effective_node_score(a->score, v.meta) >
           model::effective_node_score(b->score, v.meta);
  });
  fmt::format_to(it, "<p class=\"muted\" id=\"scoring\">Scored on {} in direction {}</p>\n",
                 score_basis_name(snapshot_basis(v.meta)),
                 direction_name(snapshot_direction(v.meta)));
  out +=
      "<table id=\"nodes\"><thead><tr><th>Node</th><th>Score (0..100)</th>"
      "<th class=\"num\">Effective</th><th class=\"num\">Extender (0..10)</th><th>Traffic</th>"
      "<th class=\"num\">Raw</th><th>Basis</th><th class=\"num\">Speed</th>"
      "<th class=\"num\">Rx util</th><th class=\"num\">Tx util</th>"
      "<th class=\"num\">Tx rate</th><th class=\"num\">Sample age</th></tr></thead><tbody>\n";
  for (const TableRow* row : sorted) {
    const auto& s = row->score;
    const std::int64_t effective = model::effective_node_score(s, v.meta);
    const long score_pct = std::clamp<long>(static_cast<long>(s.node_score), 0, 100);
    const double traffic_pct =
        max_raw > 0 && s.valid() ? std::clamp(s.raw / max_raw * 100.0, 0.0, 100.0) : 0.0;
    const auto speed = model::link_speed(s);
    fmt::format_to(
        it,
        "<tr class=\"node{}\" data-node=\"{}\" data-score=\"{}\" data-effective-score=\"{}\">"
        "<td>{}</td>"
        "<td><span class=\"bar score\"><span style=\"width:{}%\"></span></span> {}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td><span class=\"bar traffic\"><span style=\"width:{:.1f}%\"></span></span></td>"
        "<td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:.1f}s</td></tr>\n",
        s.valid() ? "" : " invalid", esc(row->name), s.node_score, effective, esc(row->name),
        score_pct, s.valid() ? std::to_string(s.node_score) : "invalid", effective,
        model::to_extender_score(effective), traffic_pct, esc(bytes(s.raw)),
        !s.valid()                        ? "-"
        : model::scored_on_utilisation(s) ? "utilisation"
                                          : "raw",
        speed ? esc(bytes(*speed) + "/s") : "-", percent_text(model::receive_utilisation(s)),
        percent_text(model::transmit_utilisation(s)),
        (s.flags & shm::kEntryTransmitRateValid) != 0 ? esc(bytes(s.transmit_rate) + "/s") : "-",
        static_cast<double>(v.now_wall_ms - s.sample_ms) * 1e-3);
  }
  out += "</tbody></table>\n";
  if (v.rows.empty()) out += "<p class=\"muted\" id=\"no-nodes\">No nodes in the snapshot.</p>\n";
  out += "<p class=\"muted\">Also as <a href=\"?format=json\">JSON</a>";
  out += " and <a href=\"?format=text\">text</a>";
  if (refresh_seconds == 0)
    out += " &middot; <a href=\"?format=html&amp;refresh=10\">auto-refresh every 10s</a>";
  out += ".</p>\n</body></html>\n";
  return out;
}

}  // namespace netscore::extender
