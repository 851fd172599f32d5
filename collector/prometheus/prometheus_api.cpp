#include "collector/prometheus/prometheus_api.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

namespace netscore::collector {
namespace {

bool retryable(const HttpResult& r) {
  // 4xx/422 is Prometheus rejecting the query: asking again gives the same answer.
  return !r.answered() || r.http_status >= 500 || r.http_status == 429;
}

// A decoded answer, or the decoder's error.
template <class T>
ApiResult<T> decoded(T answer, long http_status) {
  ApiResult<T> out{.http_status = http_status};
  if (!answer.error.empty()) {
    out.error = std::move(answer.error);
  } else {
    out.value = std::move(answer);
  }
  return out;
}

template <class T>
ApiResult<T> failed(const HttpResult& http) {
  return {.error = describe_http_failure(http), .http_status = http.http_status};
}

}  // namespace

std::string describe_http_failure(const HttpResult& result) {
  std::string text = describe_failure(result);
  if (!result.answered()) return text;
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

HttpResult PrometheusApi::query_http(const std::string& promql, std::int64_t eval_time_ms,
                                     const BackoffWait* wait, unsigned& attempts) {
  HttpResult r;
  for (unsigned attempt = 1;; ++attempt) {
    ++attempts;
    r = client_.query(promql, eval_time_ms);
    if (r.ok() || !retryable(r) || wait == nullptr || attempt > policy_.retries ||
        client_.aborted())
      return r;
    const auto backoff =
        std::min(policy_.backoff_base * (1U << std::min(attempt - 1, 4U)), kMaxBackoff);
    spdlog::debug("query retry attempt={} backoff_ms={} error=\"{}\"", attempt, backoff.count(),
                  describe_http_failure(r));
    if (!(*wait)(backoff)) return r;
  }
}

ApiResult<std::string> PrometheusApi::query_body(const std::string& promql,
                                                 std::int64_t eval_time_ms, const BackoffWait* wait,
                                                 unsigned& attempts) {
  HttpResult http = query_http(promql, eval_time_ms, wait, attempts);
  if (!http.ok()) return failed<std::string>(http);
  return {.value = std::move(http.body), .http_status = http.http_status};
}

ApiResult<ParsedVector> PrometheusApi::query(const BuiltQuery& query, std::int64_t eval_time_ms) {
  unsigned attempts = 0;
  const HttpResult http = query_http(query.promql, eval_time_ms, nullptr, attempts);
  if (!http.ok()) return failed<ParsedVector>(http);
  return decoded(parse_vector_response(http.body, query), http.http_status);
}

ApiResult<std::vector<SeriesLabels>> PrometheusApi::series_labels(const std::string& promql,
                                                                  std::int64_t eval_time_ms) {
  unsigned attempts = 0;
  const HttpResult http = query_http(promql, eval_time_ms, nullptr, attempts);
  if (!http.ok()) return failed<std::vector<SeriesLabels>>(http);
  LabelsAnswer answer = parse_series_labels(http.body);
  if (!answer.error.empty()) return {.error = std::move(answer.error), .http_status = 200};
  return {.value = std::move(answer.series), .http_status = http.http_status};
}

ApiResult<PodTrafficAnswer> PrometheusApi::pod_traffic(const std::string& promql,
                                                       std::int64_t eval_time_ms) {
  unsigned attempts = 0;
  const HttpResult http = query_http(promql, eval_time_ms, nullptr, attempts);
  if (!http.ok()) return failed<PodTrafficAnswer>(http);
  return decoded(parse_pod_traffic(http.body), http.http_status);
}

ApiResult<std::vector<RecordingRule>> PrometheusApi::recording_rules() {
  const HttpResult http = client_.recording_rules();
  if (!http.ok()) return failed<std::vector<RecordingRule>>(http);
  RulesAnswer answer = parse_recording_rules(http.body);
  if (!answer.error.empty()) return {.error = std::move(answer.error), .http_status = 200};
  return {.value = std::move(answer.rules), .http_status = http.http_status};
}

}  // namespace netscore::collector
