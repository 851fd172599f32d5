#include "collector/pipeline/print_rules.h"

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "collector/pipeline/check.h"
#include "collector/pipeline/measure.h"
#include "collector/prometheus/prometheus_api.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/model/rebalance.h"

namespace netscore::collector {
namespace {

// The descheduler skips a whole cycle when a node it considers has no series, so the nodes the
// refresh measures but the utilisation leaves out (no link speed, no fallback) are named.
// Returns how many measured nodes it covers.
std::size_t report_coverage(const NodeAnswer& nodes, const ParsedVector& utilisation,
                            std::ostream& out) {
  std::set<std::string, std::less<>> covered;
  for (const auto& s : utilisation.samples) covered.insert(s.node);
  std::string names;
  std::size_t missing = 0;
  for (const auto& s : nodes.samples) {
    if (covered.contains(s.node)) continue;
    if (++missing <= 5) names += (names.empty() ? "" : ", ") + s.node;
  }
  if (missing > 0) {
    out << fmt::format(
        "# {} node{} measured by the refresh without a utilisation (no link speed): {}{}; the "
        "descheduler skips its cycle while a node it considers has no series. "
        "NETSCORE_FALLBACK_LINK_SPEED gives them one (and scores them on it).\n",
        missing, missing == 1 ? "" : "s", names, missing > 5 ? ", ..." : "");
  }
  return nodes.samples.size() - missing;
}

}  // namespace

std::string_view utilisation_record(RebalanceFigure figure) {
  return figure == RebalanceFigure::relative ? kRelativeUtilisationRecord : kUtilisationRecord;
}

std::string utilisation_rules_text(const QueryConfig& config, const RebalanceConfig& rebalance,
                                   const QueryShape& shape, std::string_view layout) {
  std::string text = fmt::format(
      "# netscore's link utilisation per node: direction {}, rates over {} on {}, divided by the "
      "link speed{}; {}.\n",
      direction_name(config.direction), config.time_range.text, device_matcher(config),
      config.fallback_speed > 0
          ? fmt::format(" (else {:.17g} B/s, NETSCORE_FALLBACK_LINK_SPEED)", config.fallback_speed)
          : "",
      layout);
  if (config.basis == ScoreBasis::raw) {
    text +=
        "# NETSCORE_SCORE_BASIS=raw scores bytes: the descheduler then acts on a figure netscore "
        "does not score by.\n";
  }
  std::vector<std::pair<std::string_view, std::string>> records;
  std::string_view relative_from = kLinkLoadRecord;
  if (config.direction == Direction::max) {
    QueryConfig one_way = config;
    one_way.direction = Direction::receive;
    records.emplace_back(kReceiveLoadRecord, build_link_load_query(one_way, shape));
    one_way.direction = Direction::transmit;
    records.emplace_back(kTransmitLoadRecord, build_link_load_query(one_way, shape));
  }
  records.emplace_back(kLinkLoadRecord, build_link_load_query(config, shape));
  records.emplace_back(kUtilisationRecord, build_clamped_utilisation_query(kLinkLoadRecord));
  if (config.direction == Direction::max) {
    records.emplace_back(kMainDirectionLoadRecord,
                         build_main_direction_load_query(kReceiveLoadRecord, kTransmitLoadRecord));
    relative_from = kMainDirectionLoadRecord;
  }
  records.emplace_back(kRelativeUtilisationRecord, build_relative_utilisation_query(relative_from));
  text +=
      "# Prometheus rules (rule_files:, or a PrometheusRule's spec):\n"
      "groups:\n"
      "  - name: netscore-descheduler\n"
      "    rules:\n";
  for (const auto& [record, expr] : records)
    text += fmt::format("      - record: {}\n        expr: |-\n          {}\n", record, expr);
  text += fmt::format(
      "---\n"
      "# LowNodeUtilization's args in a DeschedulerPolicy (descheduler/v1alpha2), as the "
      "collector nominates (NETSCORE_REBALANCE_UTILISATION, _TARGET_POINTS, _LOW_POINTS; "
      "evictionLimits.node is how many it nominates on a node at most):\n"
      "useDeviationThresholds: true\n"
      "thresholds:\n"
      "  MetricResource: {:g}\n"
      "targetThresholds:\n"
      "  MetricResource: {:g}\n"
      "evictionLimits:\n"
      "  node: {}\n"
      "metricsUtilization:\n"
      "  source: Prometheus\n"
      "  prometheus:\n"
      "    query: {}\n",
      rebalance.low_points, rebalance.target_points, model::RebalanceSettings{}.per_node,
      utilisation_record(rebalance.figure));
  return text;
}

int run_print_rules(const Config& config, std::int64_t eval_time_ms, std::ostream& out) {
  OneShotMeasurer one_shot(config, "netscore-collector --print-rules");
  const Measurement m = one_shot.measure(eval_time_ms);
  const Measurer& measurer = one_shot.measurer;
  // The node label alone: the utilisation reads the counters whatever else the plan found.
  const QueryConfig query = rebalance_query_config(config);
  out << utilisation_rules_text(query, config.rebalance, measurer.shape(),
                                m.plan.path.substr(0, m.plan.path.find(';')));
  if (!m.nodes.answered) {
    out << "# FAIL: the refresh's query failed, so no layout was found and the rules are the "
           "configuration's alone: "
        << m.error << "\n";
    return 1;
  }
  PrometheusApi api(one_shot.client, {});
  const ApiResult<ParsedVector> utilisation = api.query(
      {.promql = build_utilisation_query(query, measurer.shape()), .node_label = "instance"},
      eval_time_ms);
  if (!utilisation.ok()) {
    // A request that failed, or an answer that did not decode.
    out << (utilisation.http_status == 200 ? "# FAIL: the utilisation query's answer: "
                                           : "# FAIL: the utilisation query failed: ")
        << utilisation.error << "\n";
    return 1;
  }
  const std::size_t covered = report_coverage(m.nodes, *utilisation.value, out);
  if (covered == 0) {
    out << "# FAIL: no node measured by the refresh has a utilisation"
        << (m.nodes.samples.empty() ? " (it measured none: netscore-collector --check says why)"
                                    : "")
        << "\n";
    return 1;
  }
  out << fmt::format("# OK: {} of the {} nodes measured have a utilisation\n", covered,
                     m.nodes.samples.size());
  return 0;
}

}  // namespace netscore::collector
