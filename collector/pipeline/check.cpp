#include "collector/pipeline/check.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "collector/pipeline/pod_traffic.h"
#include "collector/pipeline/recent_pod_traffic.h"
#include "collector/prometheus/prometheus_client.h"
#include "common/model/figures.h"
#include "common/model_settings.h"

namespace netscore::collector {
namespace {

constexpr std::size_t kBusiestLinks = 5;

// "1 Gb/s (125000000 B/s)": link speeds are quoted in bits, node-exporter's gauge is in bytes.
std::string describe_speed(double bytes_per_s) {
  const double bits = bytes_per_s * 8;
  constexpr std::pair<double, const char*> kUnits[] = {
      {1e12, "Tb/s"}, {1e9, "Gb/s"}, {1e6, "Mb/s"}, {1e3, "kb/s"}};
  std::string human = fmt::format("{:g} b/s", bits);
  for (const auto& [scale, unit] : kUnits) {
    if (bits >= scale) {
      human = fmt::format("{:g} {}", bits / scale, unit);
      break;
    }
  }
  return fmt::format("{} ({:.17g} B/s)", human, bytes_per_s);
}

std::string nodes(std::size_t count) {
  return fmt::format("{} node{}", count, count == 1 ? "" : "s");
}

std::string speed_column(const model::NodeSample& s) {
  if (s.speed > 0) return fmt::format("{:.17g}", s.speed);
  return s.unusable_speeds > 0 ? "not positive" : "-";
}

std::string rate_column(bool valid, double rate) {
  return valid ? fmt::format("{:.6g}", rate) : std::string("-");
}

std::string percent(bool valid, double rate, double speed) {
  return valid ? fmt::format("{:.4g}%", rate / speed * 100) : std::string("-");
}

// What was found of link speeds and what becomes of the nodes without one.
void print_speeds(const std::vector<model::NodeSample>& samples,
                  const model::ScoringSettings& scoring, std::ostream& out) {
  std::map<double, std::size_t> measured;
  std::size_t not_positive = 0;
  std::size_t absent = 0;
  for (const auto& s : samples) {
    if (s.speed > 0) {
      ++measured[s.speed];
    } else if (s.unusable_speeds > 0) {
      ++not_positive;
    } else {
      ++absent;
    }
  }
  out << fmt::format("scoring: basis {}, direction {}\n", score_basis_name(scoring.basis),
                     direction_name(scoring.direction));
  std::size_t with_speed = 0;
  std::string speeds;
  for (const auto& [speed, count] : measured) {
    with_speed += count;
    speeds += fmt::format("{}{} at {}", speeds.empty() ? "" : ", ", count, describe_speed(speed));
  }
  out << "link speeds: " << nodes(with_speed) << " with a measured speed"
      << (speeds.empty() ? "" : ": " + speeds) << "\n";
  if (not_positive + absent == 0) return;
  std::string fate;
  if (scoring.basis == ScoreBasis::raw) {
    fate = "the raw basis uses no link speed";
  } else if (scoring.fallback_speed > 0) {
    fate = "scored at the fallback speed " + describe_speed(scoring.fallback_speed) +
           " (NETSCORE_FALLBACK_LINK_SPEED)";
  } else {
    fate =
        "scored on the raw basis, compared only among themselves (NETSCORE_FALLBACK_LINK_SPEED "
        "would score them at that speed)";
  }
  out << fmt::format(
      "without a link speed: {} with a non-positive speed (virtual devices), {} without a speed "
      "series: {}\n",
      nodes(not_positive), nodes(absent), fate);
}

// The nodes whose links are the most used, as the collector would score them.
void print_busiest(const Measurement& m, const model::ScoringSettings& scoring, std::ostream& out) {
  struct Link {
    const model::NodeSample* sample;
    model::NodeFigures figures;
  };
  std::vector<Link> links;
  for (const auto& s : m.nodes.samples) {
    const model::NodeFigures f = model::measured_figures(s, m.eval_time_ms, scoring);
    if (model::scored_on_utilisation(f)) links.push_back({&s, f});
  }
  if (links.empty()) return;
  const std::size_t shown = std::min(links.size(), kBusiestLinks);
  std::partial_sort(
      links.begin(), links.begin() + static_cast<std::ptrdiff_t>(shown), links.end(),
      [](const Link& a, const Link& b) { return a.figures.scored > b.figures.scored; });
  out << fmt::format("busiest links ({} of {}):\n", shown, nodes(links.size()));
  for (std::size_t i = 0; i < shown; ++i) {
    const model::NodeSample& s = *links[i].sample;
    const model::NodeFigures& f = links[i].figures;
    out << fmt::format(
        "  {:<40} {:>10}  receive {}, transmit {} of {}{}\n", s.node,
        fmt::format("{:.4g}%", f.scored * 100), percent(s.rate_valid, s.rate, f.speed),
        percent(s.transmit_rate_valid, s.transmit_rate, f.speed), describe_speed(f.speed),
        (f.flags & model::kEntrySpeedFallback) != 0 ? " (fallback)" : "");
  }
}

}  // namespace

OneShotMeasurer::OneShotMeasurer(const Config& config, std::string user_agent)
    : client({.prometheus = config.prometheus, .user_agent = std::move(user_agent)}),
      measurer(config, client,
               {.retries = 0, .diagnose = Measurer::DiagnoseWhen::incomplete_answer}) {}

Measurement OneShotMeasurer::measure(std::int64_t eval_time_ms) {
  return measurer.measure(eval_time_ms, [](std::chrono::milliseconds) { return true; });
}

int run_check(const Config& config, std::int64_t eval_time_ms, std::ostream& out) {
  OneShotMeasurer one_shot(config, "netscore-collector --check");
  const Measurement m = one_shot.measure(eval_time_ms);
  const PrometheusClient& client = one_shot.client;
  const Measurer& measurer = one_shot.measurer;
  // The query as the refresh would send it now: what the side questions found shapes it.
  out << "prometheus: " << client.redacted_url() << "\nquery: " << measurer.query().promql;
  if (!measurer.query().transmit_promql.empty())
    out << "\ntransmit query (a request of its own, at the same time): "
        << measurer.query().transmit_promql;
  out << "\npath: " << m.plan.path << "\n";
  if (m.plan.asked_apart > 0) {
    out << fmt::format("asked apart (every forty refreshes, not on each refresh): {} request{}{}\n",
                       m.plan.asked_apart, m.plan.asked_apart == 1 ? "" : "s",
                       m.plan.speeds_eval_time_ms > 0 ? ", the link speeds among them" : "");
  }
  print_pod_traffic(m, out);
  return print_check(m, scoring_settings(config), out);
}

int print_check(const Measurement& m, const model::ScoringSettings& scoring, std::ostream& out) {
  const NodeAnswer& nodes = m.nodes;
  if (!nodes.queried) {
    out << "FAIL: the query failed: " << m.error << "\n";
    return 1;
  }
  if (!nodes.answered) {
    out << "FAIL: " << m.error << "\n";
    return 1;
  }
  for (const auto& w : nodes.warnings) out << "prometheus warning: " << w << "\n";
  out << fmt::format(
      "series: {}  nodes: {}  skipped: no node label {}, duplicate {}, not a number {}, "
      "not a node name {}\n",
      nodes.series, nodes.samples.size(), nodes.missing_label, nodes.duplicate_node,
      nodes.not_a_number, nodes.rejected.rejected);
  if (!nodes.samples.empty()) {
    out << fmt::format("{:<40} {:>24} {:>16} {:>16} {:>14}\n", "node", "value", "receive (B/s)",
                       "transmit (B/s)", "speed (B/s)");
  }
  for (const auto& s : nodes.samples) {
    out << fmt::format("{:<40} {:>24} {:>16} {:>16} {:>14}\n", s.node,
                       fmt::format("{:.17g}", s.value), rate_column(s.rate_valid, s.rate),
                       rate_column(s.transmit_rate_valid, s.transmit_rate), speed_column(s));
  }
  if (!nodes.samples.empty()) {
    print_speeds(nodes.samples, scoring, out);
    print_busiest(m, scoring, out);
  }
  if (!nodes.rejected_names.empty()) out << nodes.rejected_names << "\n";
  if (const auto& diagnosis = m.diagnosis.findings) {
    out << "\ndiagnosis:\n";
    for (const auto& finding : diagnosis->findings) out << "  - " << finding << "\n";
    if (!diagnosis->settings.empty()) {
      out << "\nsettings to use:\n";
      for (const auto& setting : diagnosis->settings) out << "  " << setting << "\n";
    }
  }
  if (nodes.samples.empty()) {
    out << "FAIL: no node would be scored\n";
    return 1;
  }
  out << (nodes.skipped > 0 ? "OK (partly): " : "OK: ") << nodes.samples.size()
      << " nodes would be scored\n";
  return 0;
}

void print_pod_traffic(const Measurement& m, std::ostream& out) {
  // NETSCORE_POD_TRAFFIC=false: nothing asked, nothing to say.
  if (!m.pod_traffic.every_pod) return;
  const PodTraffic& t = *m.pod_traffic.every_pod;
  if (!t.checked) {
    out << "pod traffic: not checked"
        << (t.error.empty() ? std::string(" (Prometheus did not answer)") : ": " + t.error) << "\n";
  } else if (!t.in_use) {
    out << fmt::format(
        "pod traffic: no per-pod series with namespace and pod labels ({} answered none): the "
        "container runtime fills no pod labels, or kubelet's /metrics/cadvisor is not scraped\n",
        t.detection_query);
    return;
  } else {
    out << fmt::format(
        "pod traffic: per-pod series in use, {} pod{} read {} ms before this "
        "evaluation{}; every pod read every {} ms (it took {} ms, the refresh's query {} ms)\n",
        t.pods.size(), t.pods.size() == 1 ? "" : "s",
        t.eval_time_ms > 0 ? m.eval_time_ms - t.eval_time_ms : -1,
        t.error.empty() ? "" : "; the last read failed: " + t.error, m.pod_traffic.interval_ms,
        m.pod_traffic.costs.full_ms, m.pod_traffic.costs.node_ms);
  }
  out << "  receive: " << t.receive_query << "\n  transmit: " << t.transmit_query << "\n";
  print_recent_pod_traffic(m, out);
}

void print_recent_pod_traffic(const Measurement& m, std::ostream& out) {
  if (!m.pod_traffic.every_pod) return;
  if (!m.pod_traffic.recent) {
    out << "recent pods: not read without watched pods (the collector reads those placed since "
           "the read of every pod at every refresh)\n";
    return;
  }
  const RecentPodTraffic& r = *m.pod_traffic.recent;
  out << fmt::format(
      "recent pods (placed since the read of every pod, which does not price them): {} asked, {} "
      "answered, {} left out beyond {}, {} kept; slope over {} ms; took {} ms{}\n",
      r.asked, r.answered, r.left_out, kMaxRecentPods, r.pods.size(), r.range_ms,
      m.pod_traffic.costs.recent_ms, r.error.empty() ? "" : "; the last read failed: " + r.error);
  if (r.asked > 0) out << "  receive: " << r.receive_query << "\n";
}

}  // namespace netscore::collector
