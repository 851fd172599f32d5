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

HttpResult Measurer::query_with_retries(std::int64_t eval_time_ms, const BackoffWait& wait,
                                        unsigned& attempts) {
  HttpResult r;
  for (attempts = 1;; ++attempts) {
    r = client_.query(plan_.batch().promql, eval_time_ms);
    if (r.ok() || !retryable(r) || attempts > options_.retries || client_.aborted()) return r;
    const auto backoff = std::min(options_.backoff_base * (1U << std::min(attempts - 1, 4U)),
                                  std::chrono::milliseconds(2000));
    spdlog::debug("query retry attempt={} backoff_ms={} error=\"{}\"", attempts, backoff.count(),
                  describe_http_failure(r));
    if (!wait(backoff)) return r;
  }
}

Measurement Measurer::measure(std::int64_t eval_time_ms, const BackoffWait& wait) {
  Measurement m;
  m.eval_time_ms = eval_time_ms;
  m.started_wall_ms = wall_now_ms();
  const std::int64_t started_ns = mono_now_ns();
  const auto now_ms = [] { return mono_now_ns() / 1'000'000; };
  const std::uint64_t side_before = plan_.counts().total();
  plan_.prepare(client_, eval_time_ms, now_ms());
  HttpResult http = query_with_retries(eval_time_ms, wait, m.attempts);
  std::optional<ParsedVector> parsed;
  if (http.ok()) {
    parsed = parse_vector_response(http.body, plan_.batch());
    if (plan_.reconsider(*parsed, client_, eval_time_ms, now_ms())) {
      unsigned attempts = 0;
      http = query_with_retries(eval_time_ms, wait, attempts);
      m.attempts += attempts;
      parsed =
          http.ok() ? std::optional(parse_vector_response(http.body, plan_.batch())) : std::nullopt;
    }
  }
  if (client_.aborted()) {
    m.stopped = true;
    m.error = "stopped";
    return m;
  }
  m.queried = http.ok();
  if (m.queried) {
    parse(std::move(*parsed), m);
    if (m.error.empty()) m.error = plan_.attach_speeds(m.samples, client_, eval_time_ms, now_ms());
  } else {
    m.error = describe_http_failure(http);
  }
  m.ok = m.error.empty();
  m.plan = plan_.describe();
  m.side_queries_total = plan_.counts().total();
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
