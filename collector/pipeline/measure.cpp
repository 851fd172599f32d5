#include "collector/pipeline/measure.h"

#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/clock.h"

namespace netscore::collector {

Measurer::Measurer(const Config& config, PrometheusClient& client)
    : Measurer(config, client, {.retries = config.prometheus.retries}) {}

Measurer::Measurer(const Config& config, PrometheusClient& client, Options options)
    : client_(client),
      api_(client, {.retries = options.retries, .backoff_base = options.backoff_base}),
      plan_(config.query, config.recheck_interval.value, options.clock),
      query_config_(config.query),
      options_(options) {
  if (config.pod_traffic.enabled) pod_traffic_.emplace(config, options.clock, options.cluster);
  if (config.rebalance.label) rebalance_query_ = rebalance_query_config(config);
}

std::optional<ParsedVector> Measurer::ask_batch(std::int64_t eval_time_ms, const BackoffWait& wait,
                                                Measurement& m, std::string& failure) {
  const BuiltQuery& batch = plan_.batch();
  ApiResult<std::string> receive = api_.query_body(batch.promql, eval_time_ms, &wait, m.attempts);
  if (!receive.ok()) {
    failure = std::move(receive.error);
    return std::nullopt;
  }
  ApiResult<std::string> transmit{.value = std::string()};
  if (!batch.transmit_promql.empty()) {
    transmit = api_.query_body(batch.transmit_promql, eval_time_ms, &wait, m.attempts);
    if (!transmit.ok()) {
      failure = std::move(transmit.error);
      return std::nullopt;
    }
  }
  return parse_batch_response(*receive.value, *transmit.value, batch);
}

Measurement Measurer::measure(std::int64_t eval_time_ms, const BackoffWait& wait) {
  Measurement m;
  m.eval_time_ms = eval_time_ms;
  m.started_wall_ms = wall_now_ms();
  const std::int64_t started_ns = mono_now_ns();
  const std::uint64_t side_before = plan_.counts().total();
  plan_.prepare(api_, eval_time_ms);
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
  m.queried = parsed.has_value();
  if (m.queried) {
    parse(std::move(*parsed), m);
    if (m.error.empty()) m.error = plan_.attach_speeds(m.samples, api_, eval_time_ms);
  } else {
    m.error = std::move(failure);
  }
  m.ok = m.error.empty();
  m.plan = plan_.describe();
  m.side_queries_total = plan_.counts().total();
  m.side_queries_failed_total = plan_.counts().failed;
  m.side_queries = static_cast<std::uint32_t>(m.side_queries_total - side_before);
  m.speeds_eval_time_ms = plan_.speeds_eval_time_ms();
  // Its own cadence and its own failures: a pod read that fails never fails the node figures.
  // Asked only of a Prometheus that answered, so that one down costs no more timeouts.
  if (pod_traffic_) {
    m.pod_traffic = m.queried && !client_.aborted()
                        ? pod_traffic_->refresh(api_, eval_time_ms, node_read_ms)
                        : pod_traffic_->traffic();
    if (options_.cluster != nullptr) m.recent_pod_traffic = pod_traffic_->recent();
    m.pod_traffic_interval_ms = pod_traffic_->interval_ms();
    m.pod_traffic_costs = pod_traffic_->last_costs();
  }
  if (rebalance_query_ && m.ok && !client_.aborted()) ask_rebalance_utilisation(eval_time_ms, m);
  if (m.answered) diagnose_if_due(m);
  m.finished_wall_ms = wall_now_ms();
  m.finished_mono_ns = mono_now_ns();
  m.duration_us = (m.finished_mono_ns - started_ns) / 1000;
  return m;
}

void Measurer::parse(ParsedVector parsed, Measurement& m) const {
  m.rejected = remove_non_node_names(parsed.samples);
  m.rejected_names = describe_rejected_names(m.rejected, query_config_);
  m.answered = parsed.ok();
  m.series = parsed.series;
  m.missing_label = parsed.missing_label;
  m.duplicate_node = parsed.duplicate_node;
  m.not_a_number = parsed.not_a_number;
  m.skipped = parsed.skipped() + m.rejected.rejected;
  m.warnings = std::move(parsed.warnings);
  if (!parsed.ok()) {
    m.error = parsed.error;
  } else if (parsed.samples.empty()) {
    m.error = parsed.series == 0 ? "zero series in the answer" : "no usable series in the answer";
  } else {
    m.samples = std::move(parsed.samples);
  }
}

void Measurer::ask_rebalance_utilisation(std::int64_t eval_time_ms, Measurement& m) {
  unsigned attempts = 0;
  const ApiResult<std::string> body = api_.query_body(
      build_utilisation_query(*rebalance_query_, plan_.shape()), eval_time_ms, nullptr, attempts);
  if (!body.ok()) {
    m.rebalance_error = body.error;
    return;
  }
  ParsedVector parsed = parse_vector_response(*body.value, "instance");
  if (!parsed.ok()) {
    m.rebalance_error = parsed.error;
    return;
  }
  auto utilisation = std::make_shared<model::NodeUtilisation>();
  for (const auto& sample : parsed.samples) (*utilisation)[sample.node] = sample.value;
  std::size_t missing = 0;
  std::string_view first_missing;
  for (const auto& sample : m.samples) {
    const bool has_speed = sample.speed > 0 || rebalance_query_->fallback_speed > 0;
    if (!has_speed || utilisation->contains(sample.node)) continue;
    if (missing++ == 0) first_missing = sample.node;
  }
  if (missing > 0) {
    m.rebalance_missing = fmt::format(
        "{} node{} with a link speed ({}{}) without a utilisation over {} "
        "(NETSCORE_REBALANCE_WINDOW): fewer than two scrapes in it?",
        missing, missing == 1 ? "" : "s", first_missing, missing > 1 ? ", ..." : "",
        rebalance_query_->time_range.text);
  }
  m.rebalance_utilisation = std::move(utilisation);
}

void Measurer::diagnose_if_due(Measurement& m) {
  if (options_.diagnose == DiagnoseWhen::incomplete_answer) {
    if (!m.ok || m.skipped > 0) m.diagnosis = diagnose(api_, query_config_, m.eval_time_ms);
    return;
  }
  // Only for a well-formed answer: Prometheus unreachable says nothing about the layout, and the
  // diagnosis' queries would fail the same way. Such an answer fails only when it has no usable
  // series.
  if (m.ok) {
    diagnosed_ = false;
    m.status_diagnosis = m.rejected_names;
  } else if (!diagnosed_ && !client_.aborted()) {
    diagnosed_ = true;
    m.diagnosis = diagnose(api_, query_config_, m.eval_time_ms);
    std::string text = m.diagnosis->summary();
    if (!m.rejected_names.empty()) text += " " + m.rejected_names;
    m.status_diagnosis = std::move(text);
  }
}

}  // namespace netscore::collector
