#include "collector/refresher.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "collector/diagnosis.h"
#include "collector/placement.h"
#include "collector/prometheus/response_parser.h"
#include "common/clock.h"

namespace netscore::collector {
namespace {

bool retryable(const HttpResult& r) {
  // 4xx/422 is Prometheus rejecting the query: asking again gives the same answer.
  return !r.answered() || r.http_status >= 500 || r.http_status == 429;
}

}  // namespace

std::string describe_http_failure(const HttpResult& result) {
  if (!result.answered()) return "transport error: " + result.transport_error;
  std::string text = "http status " + std::to_string(result.http_status);
  if (result.http_status == 401 || result.http_status == 403) {
    text +=
        ": Prometheus refused the credentials (user:password in NETSCORE_PROMETHEUS_URL, "
        "NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE or an Authorization header)";
  } else if (result.http_status == 404) {
    text +=
        ": no query API at this URL (a path prefix such as --web.route-prefix belongs in "
        "NETSCORE_PROMETHEUS_URL)";
  }
  const ParsedVector parsed = parse_vector_response(result.body, "");
  if (!parsed.ok() && parsed.error.starts_with("prometheus error")) text += ": " + parsed.error;
  return text;
}

Refresher::Refresher(const Config& config, PrometheusClient& client, ScoreTableWriter& writer)
    : Refresher(config, client, writer, Sink{}) {}

Refresher::Refresher(const Config& config, PrometheusClient& client, ScoreTableWriter& writer,
                     Sink sink)
    : client_(client),
      writer_(writer),
      query_(build_batch_query(config.query)),
      query_config_(config.query),
      retries_(config.prometheus.retries),
      sink_(std::move(sink)) {
  status_.writer_pid = getpid();
  status_.refresh_interval_ms = config.refresh_interval.value.count();
}

HttpResult Refresher::query_with_retries(std::int64_t eval_time_ms, const BackoffWait& wait,
                                         unsigned& attempts) {
  HttpResult r;
  for (attempts = 1;; ++attempts) {
    r = client_.query(query_.promql, eval_time_ms);
    if (r.ok() || !retryable(r) || attempts > retries_ || client_.aborted()) return r;
    const auto backoff = std::min(backoff_base_ * (1U << std::min(attempts - 1, 4U)),
                                  std::chrono::milliseconds(2000));
    spdlog::debug("query retry attempt={} backoff_ms={} error=\"{}\"", attempts, backoff.count(),
                  describe_http_failure(r));
    if (!wait(backoff)) return r;
  }
}

RefreshResult Refresher::refresh(std::int64_t eval_time_ms, const BackoffWait& wait) {
  RefreshResult result;
  const std::int64_t started_wall_ms = wall_now_ms();
  const std::int64_t started_ns = mono_now_ns();
  const HttpResult http = query_with_retries(eval_time_ms, wait, result.attempts);
  if (client_.aborted()) {
    // Shutting down: an interrupted attempt says nothing about Prometheus, so it is not recorded.
    result.error = "stopped";
    return result;
  }
  std::string rejected_names;
  bool answered = false;  // Prometheus gave a well-formed answer
  if (!http.ok()) {
    result.error = describe_http_failure(http);
  } else {
    ParsedVector parsed = parse_vector_response(http.body, query_.node_label, query_.kind_label,
                                                query_.score_is_rate);
    const NameFilter names = remove_non_node_names(parsed.samples);
    rejected_names = describe_rejected_names(names, query_config_);
    answered = parsed.ok();
    result.series = parsed.series;
    result.skipped = parsed.skipped() + names.rejected;
    for (const auto& w : parsed.warnings) spdlog::warn("prometheus warning=\"{}\"", w);
    if (parsed.skipped() > 0) {
      spdlog::warn("skipped series total={} missing_label={} duplicate_node={} not_a_number={}",
                   parsed.skipped(), parsed.missing_label, parsed.duplicate_node,
                   parsed.not_a_number);
    }
    if (!parsed.ok()) {
      result.error = parsed.error;
    } else if (parsed.samples.empty()) {
      result.error =
          parsed.series == 0 ? "zero series in the answer" : "no usable series in the answer";
    } else {
      publish(std::move(parsed.samples), eval_time_ms, result);
    }
  }
  result.ok = result.error.empty();
  if (answered) update_diagnosis(result, rejected_names, eval_time_ms);
  result.duration_us = (mono_now_ns() - started_ns) / 1000;
  record(result, started_wall_ms);
  return result;
}

void Refresher::publish(std::vector<NodeSample> samples, std::int64_t eval_time_ms,
                        RefreshResult& result) {
  if (sink_.measurement) {
    result.published = static_cast<std::uint32_t>(samples.size());
    sink_.measurement(std::move(samples), eval_time_ms);
    return;
  }
  const BuiltSnapshot snapshot = build_snapshot(samples, eval_time_ms, nullptr, {}, 0);
  const PublishCounts counts = writer_.publish(snapshot.entries, eval_time_ms);
  result.published = counts.stored;
  if (counts.overflow > 0 || counts.rejected > 0) {
    spdlog::warn("publish dropped overflow={} rejected={}", counts.overflow, counts.rejected);
  }
}

void Refresher::update_diagnosis(const RefreshResult& result, const std::string& rejected_names,
                                 std::int64_t eval_time_ms) {
  if (rejected_names != logged_rejected_) {
    if (!rejected_names.empty()) spdlog::warn("{}", rejected_names);
    logged_rejected_ = rejected_names;
  }
  // Only called for a well-formed answer: Prometheus unreachable says nothing about the layout,
  // and the diagnosis' queries would fail the same way. Such an answer fails only when it has
  // no usable series.
  if (result.ok) {
    diagnosed_ = false;
    diagnosis_ = rejected_names;
  } else if (!diagnosed_ && !client_.aborted()) {
    diagnosed_ = true;
    const Diagnosis d = diagnose(client_, query_config_, eval_time_ms);
    diagnosis_ = d.summary();
    if (!rejected_names.empty()) diagnosis_ += " " + rejected_names;
    spdlog::warn("no usable series diagnosis=\"{}\"", diagnosis_);
  }
  std::memset(status_.diagnosis, 0, sizeof status_.diagnosis);
  std::memcpy(status_.diagnosis, diagnosis_.data(),
              std::min(diagnosis_.size(), sizeof status_.diagnosis - 1));
}

void Refresher::record(const RefreshResult& result, std::int64_t started_wall_ms) {
  const bool was_failing = status_.consecutive_failures > 0;
  status_.refresh_started_wall_ms = started_wall_ms;
  status_.refresh_finished_wall_ms = wall_now_ms();
  status_.heartbeat_mono_ns = mono_now_ns();
  status_.query_duration_us = result.duration_us;
  ++status_.refreshes_total;
  std::memset(status_.last_error, 0, sizeof status_.last_error);
  if (result.ok) {
    status_.consecutive_failures = 0;
    status_.last_success_wall_ms = status_.refresh_finished_wall_ms;
    status_.last_success_mono_ns = status_.heartbeat_mono_ns;
    status_.series_count = result.series;
    status_.skipped_series = result.skipped;
  } else {
    ++status_.consecutive_failures;
    ++status_.failures_total;
    std::memcpy(status_.last_error, result.error.data(),
                std::min(result.error.size(), sizeof status_.last_error - 1));
  }
  if (sink_.status) {
    sink_.status(status_);
  } else {
    writer_.record_status(status_);
  }
  if (result.ok && was_failing) {
    spdlog::info("prometheus recovered nodes={} took_ms={}", result.published,
                 result.duration_us / 1000);
  } else if (!result.ok && !was_failing) {
    spdlog::warn("prometheus failing url={} error=\"{}\" attempts={}", client_.redacted_url(),
                 result.error, result.attempts);
  }
  spdlog::debug("refresh ok={} nodes={} series={} skipped={} attempts={} took_us={} error=\"{}\"",
                result.ok, result.published, result.series, result.skipped, result.attempts,
                result.duration_us, result.error);
}

}  // namespace netscore::collector
