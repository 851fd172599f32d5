#include "collector/pipeline/measure.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/model/rebalance.h"

namespace netscore::collector {

Measurer::Measurer(const Config& config, PrometheusClient& client)
    : Measurer(config, client, {.retries = config.prometheus.retries}) {}

Measurer::Measurer(const Config& config, PrometheusClient& client, Options options)
    : client_(client),
      api_(client, {.retries = options.retries, .backoff_base = options.backoff_base}),
      plan_(config.query, config.recheck_interval.value, options.clock),
      query_config_(config.query),
      rebalance_figure_(config.rebalance.figure),
      options_(options) {
  if (config.pod_traffic.enabled) pod_traffic_.emplace(config, options.clock, options.cluster);
  if (config.rebalance.label) rebalance_query_ = rebalance_query_config(config);
}

std::optional<ParsedVector> Measurer::ask_batch(std::int64_t eval_time_ms, const BackoffWait& wait,
                                                Measurement& m, std::string& failure) {
  const BuiltQuery& batch = plan_.batch();
  ApiResult<std::string> receive =
      api_.query_body(batch.promql, eval_time_ms, &wait, m.timing.attempts);
  if (!receive.ok()) {
    failure = std::move(receive.error);
    return std::nullopt;
  }
  ApiResult<std::string> transmit{.value = std::string()};
  if (!batch.transmit_promql.empty()) {
    transmit = api_.query_body(batch.transmit_promql, eval_time_ms, &wait, m.timing.attempts);
    if (!transmit.ok()) {
      failure = std::move(transmit.error);
      return std::nullopt;
    }
  }
  return parse_batch_response(*receive.value, *transmit.value, batch);
}

Measurer::RefreshPlan Measurer::plan_refresh() const {
  RefreshPlan plan{.side = plan_.due(), .rebalance = rebalance_query_.has_value()};
  if (pod_traffic_) plan.pods = pod_traffic_->due();
  return plan;
}

Measurement Measurer::measure(std::int64_t eval_time_ms, const BackoffWait& wait) {
  Measurement m;
  m.eval_time_ms = eval_time_ms;
  m.timing.started_wall_ms = wall_now_ms();
  const std::int64_t started_ns = mono_now_ns();
  const std::uint64_t side_before = plan_.counts().total();
  const RefreshPlan plan = plan_refresh();
  plan_.prepare(plan.side, api_, eval_time_ms);
  std::string failure;
  const std::int64_t asked_ms = options_.clock();
  std::optional<ParsedVector> parsed = ask_batch(eval_time_ms, wait, m, failure);
  std::int64_t node_read_ms = options_.clock() - asked_ms;
  if (parsed && plan_.reconsider(*parsed, api_, eval_time_ms)) {
    const std::int64_t again_ms = options_.clock();
    parsed = ask_batch(eval_time_ms, wait, m, failure);
    node_read_ms = options_.clock() - again_ms;
  }
  if (client_.aborted()) {
    m.stopped = true;
    m.error = "stopped";
    return m;
  }
  m.nodes.queried = parsed.has_value();
  if (m.nodes.queried) {
    parse(std::move(*parsed), m);
    if (m.error.empty())
      m.error = plan_.attach_speeds(plan.side, m.nodes.samples, api_, eval_time_ms);
  } else {
    m.error = std::move(failure);
  }
  m.ok = m.error.empty();
  m.plan = plan_.report(side_before);
  read_sides(plan, node_read_ms, m);
  if (m.nodes.answered) diagnose_if_due(m);
  m.timing.finished_wall_ms = wall_now_ms();
  m.timing.finished_mono_ns = mono_now_ns();
  m.timing.duration_us = (m.timing.finished_mono_ns - started_ns) / 1000;
  return m;
}

void Measurer::read_sides(const RefreshPlan& plan, std::int64_t node_read_ms, Measurement& m) {
  // The pods' own cadence: asked only of a Prometheus that answered, so that one down costs no
  // more timeouts.
  if (plan.pods) {
    if (m.nodes.queried && !client_.aborted())
      pod_traffic_->refresh(api_, m.eval_time_ms, node_read_ms, plan.pods);
    m.pod_traffic = pod_traffic_->reads();
  }
  if (plan.rebalance && m.ok && !client_.aborted())
    m.rebalance = read_rebalance_utilisation(m.eval_time_ms, m.nodes.samples);
}

void Measurer::parse(ParsedVector parsed, Measurement& m) const {
  NodeAnswer& nodes = m.nodes;
  nodes.rejected = remove_non_node_names(parsed.samples);
  nodes.rejected_names = describe_rejected_names(nodes.rejected, query_config_);
  nodes.answered = parsed.ok();
  nodes.series = parsed.series;
  nodes.missing_label = parsed.missing_label;
  nodes.duplicate_node = parsed.duplicate_node;
  nodes.not_a_number = parsed.not_a_number;
  nodes.skipped = parsed.skipped() + nodes.rejected.rejected;
  nodes.warnings = std::move(parsed.warnings);
  if (!parsed.ok()) {
    m.error = parsed.error;
  } else if (parsed.samples.empty()) {
    m.error = parsed.series == 0 ? "zero series in the answer" : "no usable series in the answer";
  } else {
    nodes.samples = std::move(parsed.samples);
  }
}

std::optional<model::NodeUtilisation> Measurer::read_link_load(Direction direction,
                                                               std::int64_t eval_time_ms,
                                                               std::string& error) {
  QueryConfig query = *rebalance_query_;
  query.direction = direction;
  unsigned attempts = 0;
  const ApiResult<std::string> body =
      api_.query_body(build_link_load_query(query, plan_.shape()), eval_time_ms, nullptr, attempts);
  if (!body.ok()) {
    error = body.error;
    return std::nullopt;
  }
  ParsedVector parsed = parse_vector_response(*body.value, "instance");
  if (!parsed.ok()) {
    error = parsed.error;
    return std::nullopt;
  }
  model::NodeUtilisation loads;
  for (const auto& sample : parsed.samples) loads[sample.node] = sample.value;
  return loads;
}

RebalanceRead Measurer::read_rebalance_utilisation(std::int64_t eval_time_ms,
                                                   const std::vector<model::NodeSample>& samples) {
  RebalanceRead read;
  const Direction configured = rebalance_query_->direction;
  const bool both = model::figure_chooses_direction(rebalance_figure_, configured);
  auto first = read_link_load(both ? Direction::receive : configured, eval_time_ms, read.error);
  if (!first) return read;
  auto utilisation = std::make_shared<model::LinkLoads>(
      model::LinkLoads{.by_node = std::move(*first), .direction = configured});
  if (both) {
    auto transmit = read_link_load(Direction::transmit, eval_time_ms, read.error);
    if (!transmit) return read;
    utilisation->direction =
        model::figure_direction(rebalance_figure_, configured, utilisation->by_node, *transmit);
    if (utilisation->direction == Direction::transmit) utilisation->by_node = std::move(*transmit);
  }
  std::size_t missing = 0;
  std::string_view first_missing;
  for (const auto& sample : samples) {
    const bool has_speed = sample.speed > 0 || rebalance_query_->fallback_speed > 0;
    if (!has_speed || utilisation->by_node.contains(sample.node)) continue;
    if (missing++ == 0) first_missing = sample.node;
  }
  if (missing > 0) {
    read.missing = fmt::format(
        "{} node{} with a link speed ({}{}) without a utilisation over {} "
        "(NETSCORE_REBALANCE_WINDOW): fewer than two scrapes in it?",
        missing, missing == 1 ? "" : "s", first_missing, missing > 1 ? ", ..." : "",
        rebalance_query_->time_range.text);
  }
  read.utilisation = std::move(utilisation);
  return read;
}

void Measurer::diagnose_if_due(Measurement& m) {
  if (options_.diagnose == DiagnoseWhen::incomplete_answer) {
    if (!m.ok || m.nodes.skipped > 0)
      m.diagnosis.findings = diagnose(api_, query_config_, m.eval_time_ms);
    return;
  }
  // Only for a well-formed answer: Prometheus unreachable says nothing about the layout, and the
  // diagnosis' queries would fail the same way. Such an answer fails only when it has no usable
  // series.
  if (m.ok) {
    diagnosed_ = false;
    m.diagnosis.status = m.nodes.rejected_names;
  } else if (!diagnosed_ && !client_.aborted()) {
    diagnosed_ = true;
    m.diagnosis.findings = diagnose(api_, query_config_, m.eval_time_ms);
    std::string text = m.diagnosis.findings->summary();
    if (!m.nodes.rejected_names.empty()) text += " " + m.nodes.rejected_names;
    m.diagnosis.status = std::move(text);
  }
}

}  // namespace netscore::collector
