#include "collector/check.h"

#include <cmath>

#include <fmt/format.h>

#include "collector/diagnosis.h"
#include "collector/prometheus/prometheus_client.h"
#include "collector/prometheus/query_builder.h"
#include "collector/refresher.h"
#include "collector/prometheus/response_parser.h"

namespace netscore::collector {

int run_check(const Config& config, std::int64_t eval_time_ms, std::ostream& out) {
  const BuiltQuery query = build_batch_query(config.query);
  PrometheusClient client(
      {.prometheus = config.prometheus, .user_agent = "netscore-collector --check"});
  out << "prometheus: " << client.redacted_url() << "\nquery: " << query.promql << "\n";
  const HttpResult http = client.query(query.promql, eval_time_ms);
  if (!http.ok()) {
    out << "FAIL: the query failed: " << describe_http_failure(http) << "\n";
    return 1;
  }
  ParsedVector parsed =
      parse_vector_response(http.body, query.node_label, query.kind_label, query.score_is_rate);
  if (!parsed.ok()) {
    out << "FAIL: " << parsed.error << "\n";
    return 1;
  }
  for (const auto& w : parsed.warnings) out << "prometheus warning: " << w << "\n";
  const NameFilter names = remove_non_node_names(parsed.samples);
  out << fmt::format(
      "series: {}  nodes: {}  skipped: no node label {}, duplicate {}, not a number {}, not a node "
      "name {}\n",
      parsed.series, parsed.samples.size(), parsed.missing_label, parsed.duplicate_node,
      parsed.not_a_number, names.rejected);
  if (!parsed.samples.empty())
    out << fmt::format("{:<40} {:>24} {:>18}\n", "node", "value", "rate (bytes/s)");
  for (const auto& s : parsed.samples) {
    out << fmt::format("{:<40} {:>24} {:>18}\n", s.node, fmt::format("{:.17g}", s.value),
                       s.rate_valid ? fmt::format("{:.6g}", s.rate) : std::string("-"));
  }
  if (const std::string rejected = describe_rejected_names(names, config.query);
      !rejected.empty()) {
    out << rejected << "\n";
  }
  const bool partial = parsed.skipped() + names.rejected > 0;
  if (parsed.samples.empty() || partial) {
    const Diagnosis d = diagnose(client, config.query, eval_time_ms);
    out << "\ndiagnosis:\n";
    for (const auto& finding : d.findings) out << "  - " << finding << "\n";
    if (!d.settings.empty()) {
      out << "\nsettings to use:\n";
      for (const auto& setting : d.settings) out << "  " << setting << "\n";
    }
  }
  if (parsed.samples.empty()) {
    out << "FAIL: no node would be scored\n";
    return 1;
  }
  out << (partial ? "OK (partly): " : "OK: ") << parsed.samples.size()
      << " nodes would be scored\n";
  return 0;
}

}  // namespace netscore::collector
