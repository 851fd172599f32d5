#include "collector/pipeline/check.h"

#include <fmt/format.h>

#include "collector/prometheus/prometheus_client.h"

namespace netscore::collector {

int run_check(const Config& config, std::int64_t eval_time_ms, std::ostream& out) {
  PrometheusClient client(
      {.prometheus = config.prometheus, .user_agent = "netscore-collector --check"});
  Measurer measurer(config, client,
                    {.retries = 0, .diagnose = Measurer::DiagnoseWhen::incomplete_answer});
  out << "prometheus: " << client.redacted_url() << "\nquery: " << measurer.query().promql << "\n";
  const Measurement m =
      measurer.measure(eval_time_ms, [](std::chrono::milliseconds) { return true; });
  return print_check(m, out);
}

int print_check(const Measurement& m, std::ostream& out) {
  if (!m.queried) {
    out << "FAIL: the query failed: " << m.error << "\n";
    return 1;
  }
  if (!m.answered) {
    out << "FAIL: " << m.error << "\n";
    return 1;
  }
  for (const auto& w : m.warnings) out << "prometheus warning: " << w << "\n";
  out << fmt::format(
      "series: {}  nodes: {}  skipped: no node label {}, duplicate {}, not a number {}, "
      "not a node name {}\n",
      m.series, m.samples.size(), m.missing_label, m.duplicate_node, m.not_a_number,
      m.rejected.rejected);
  if (!m.samples.empty())
    out << fmt::format("{:<40} {:>24} {:>18}\n", "node", "value", "rate (bytes/s)");
  for (const auto& s : m.samples) {
    out << fmt::format("{:<40} {:>24} {:>18}\n", s.node, fmt::format("{:.17g}", s.value),
                       s.rate_valid ? fmt::format("{:.6g}", s.rate) : std::string("-"));
  }
  if (!m.rejected_names.empty()) out << m.rejected_names << "\n";
  if (m.diagnosis) {
    out << "\ndiagnosis:\n";
    for (const auto& finding : m.diagnosis->findings) out << "  - " << finding << "\n";
    if (!m.diagnosis->settings.empty()) {
      out << "\nsettings to use:\n";
      for (const auto& setting : m.diagnosis->settings) out << "  " << setting << "\n";
    }
  }
  if (m.samples.empty()) {
    out << "FAIL: no node would be scored\n";
    return 1;
  }
  out << (m.skipped > 0 ? "OK (partly): " : "OK: ") << m.samples.size()
      << " nodes would be scored\n";
  return 0;
}

}  // namespace netscore::collector
