#include "collector/pipeline/measure.h"

#include <algorithm>

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
      query_(build_batch_query(config.query)),
      query_config_(config.query),
      options_(options) {}

HttpResult Measurer::query_with_retries(std::int64_t eval_time_ms, const BackoffWait& wait,
                                        unsigned& attempts) {
  HttpResult r;
  for (attempts = 1;; ++attempts) {
    r = client_.query(query_.promql, eval_time_ms);
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
  const HttpResult http = query_with_retries(eval_time_ms, wait, m.attempts);
  if (client_.aborted()) {
    m.stopped = true;
    m.error = "stopped";
    return m;
  }
  m.queried = http.ok();
  if (m.queried) {
    parse(http, m);
  } else {
    m.error = describe_http_failure(http);
  }
  m.ok = m.error.empty();
  if (m.answered) diagnose_if_due(m);
  m.finished_wall_ms = wall_now_ms();
  m.finished_mono_ns = mono_now_ns();
  m.duration_us = (m.finished_mono_ns - started_ns) / 1000;
  return m;
}

void Measurer::parse(const HttpResult& http, Measurement& m) const {
  ParsedVector parsed =
      parse_vector_response(http.body, query_.node_label, query_.kind_label, query_.score_is_rate);
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
