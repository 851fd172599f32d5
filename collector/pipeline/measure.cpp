#include "collector/pipeline/measure.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/clock.h"

namespace netscore::collector {
namespace {

bool retryable(const HttpResult& r) {
  // 4xx/422 is Prometheus rejecting the query: asking again gives the same answer.
  return !r.answered() || r.http_status >= 500 || r.http_status == 429;
}

}  // namespace

Measurer::Measurer(const Config& config, PrometheusClient& client)
    : Measurer(config, client, {.retries = config.prometheus.retries}) {}

Measurer::Measurer(const Config& config, PrometheusClient& client, Options options)
    : client_(client),
      plan_(config.query, config.recheck_interval.value),
      query_config_(config.query),
      options_(options) {}

HttpResult Measurer::query_with_retries(const std::string& promql, std::int64_t eval_time_ms,
                                        const BackoffWait& wait, unsigned& attempts) {
  HttpResult r;
  for (unsigned attempt = 1;; ++attempt) {
    ++attempts;
    r = client_.query(promql, eval_time_ms);
    if (r.ok() || !retryable(r) || attempt > options_.retries || client_.aborted()) return r;
    const auto backoff = std::min(options_.backoff_base * (1U << std::min(attempt - 1, 4U)),
                                  std::chrono::milliseconds(2000));
    spdlog::debug("query retry attempt={} backoff_ms={} error=\"{}\"", attempt, backoff.count(),
                  describe_http_failure(r));
    if (!wait(backoff)) return r;
  }
}

std::optional<ParsedVector> Measurer::ask_batch(std::int64_t eval_time_ms, const BackoffWait& wait,
                                                Measurement& m, HttpResult& failure) {
  const BuiltQuery& batch = plan_.batch();
  HttpResult receive = query_with_retries(batch.promql, eval_time_ms, wait, m.attempts);
  if (!receive.ok()) {
    failure = std::move(receive);
    return std::nullopt;
  }
  HttpResult transmit;
  if (!batch.transmit_promql.empty()) {
    transmit = query_with_retries(batch.transmit_promql, eval_time_ms, wait, m.attempts);
    if (!transmit.ok()) {
      failure = std::move(transmit);
      return std::nullopt;
    }
  }
  return parse_batch_response(receive.body, transmit.body, batch);
}

Measurement Measurer::measure(std::int64_t eval_time_ms, const BackoffWait& wait) {
  Measurement m;
  m.eval_time_ms = eval_time_ms;
  m.started_wall_ms = wall_now_ms();
  const std::int64_t started_ns = mono_now_ns();
  const auto now_ms = [] { return mono_now_ns() / 1'000'000; };
  const std::uint64_t side_before = plan_.counts().total();
  plan_.prepare(client_, eval_time_ms, now_ms());
  HttpResult failure;
  std::optional<ParsedVector> parsed = ask_batch(eval_time_ms, wait, m, failure);
  if (parsed && plan_.reconsider(*parsed, client_, eval_time_ms, now_ms()))
    parsed = ask_batch(eval_time_ms, wait, m, failure);
  if (client_.aborted()) {
    m.stopped = true;
    m.error = "stopped";
    return m;
  }
  m.queried = parsed.has_value();
  if (m.queried) {
    parse(std::move(*parsed), m);
    if (m.error.empty()) m.error = plan_.attach_speeds(m.samples, client_, eval_time_ms, now_ms());
  } else {
    m.error = describe_http_failure(failure);
  }
  m.ok = m.error.empty();
  m.plan = plan_.describe();
  m.side_queries_total = plan_.counts().total();
  m.side_queries_failed_total = plan_.counts().failed;
  m.side_queries = static_cast<std::uint32_t>(m.side_queries_total - side_before);
  m.speeds_eval_time_ms = plan_.speeds_eval_time_ms();
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

void Measurer::diagnose_if_due(Measurement& m) {
  if (options_.diagnose == DiagnoseWhen::incomplete_answer) {
    if (!m.ok || m.skipped > 0) m.diagnosis = diagnose(client_, query_config_, m.eval_time_ms);
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
    m.diagnosis = diagnose(client_, query_config_, m.eval_time_ms);
    std::string text = m.diagnosis->summary();
    if (!m.rejected_names.empty()) text += " " + m.rejected_names;
    m.status_diagnosis = std::move(text);
  }
}

}  // namespace netscore::collector
