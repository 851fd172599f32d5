#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collector/http/http_session.h"
#include "collector/prometheus/prometheus_client.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"

// The collector's one typed view of Prometheus' HTTP API
// (https://prometheus.io/docs/prometheus/latest/querying/api/), as client_golang's
// api/prometheus/v1 is Go's: every call returns a decoded value or one failure text, and the
// retry and timeout policy is decided here once (the timeouts are the session's,
// NETSCORE_PROMETHEUS_TIMEOUT and _CONNECT_TIMEOUT). Not thread-safe, like the client under it:
// the measuring thread owns it; PrometheusClient::abort() may stop it from any thread.
namespace netscore::collector {

// An HTTP answer's error text: how every failure of the API reads. Prometheus' own error message
// when the body carries one, and for 401/403/404 the setting to check.
std::string describe_http_failure(const HttpResult& result);

// A call's value, or why there is none.
template <class T>
struct ApiResult {
  std::optional<T> value{};
  std::string error{};   // describe_http_failure's text, or the decoder's; empty on success
  long http_status = 0;  // the answer's status; 0 without one (transport error)

  bool ok() const { return value.has_value(); }
};

class PrometheusApi {
 public:
  // Waits up to the given time between attempts; returns false when the collector is stopping.
  using BackoffWait = std::function<bool(std::chrono::milliseconds)>;

  struct Policy {
    // Attempts after the first, for a call given a BackoffWait: transport errors, 5xx and 429.
    unsigned retries = 0;
    // Doubling from this, at most kMaxBackoff.
    std::chrono::milliseconds backoff_base{200};
  };
  static constexpr std::chrono::milliseconds kMaxBackoff{2000};

  PrometheusApi(PrometheusClient& client, Policy policy) : client_(client), policy_(policy) {}

  // POST /api/v1/query at `eval_time_ms`, the body left undecoded: the refresh's requests are
  // decoded together (parse_batch_response). With a wait, retried by the policy; without, one
  // attempt (the questions asked off the refresh are asked again at the next one instead).
  // `attempts` counts the requests made.
  ApiResult<std::string> query_body(const std::string& promql, std::int64_t eval_time_ms,
                                    const BackoffWait* wait, unsigned& attempts);
  // One attempt of a query, decoded as series keyed by the query's node and kind labels.
  ApiResult<ParsedVector> query(const BuiltQuery& query, std::int64_t eval_time_ms);
  // One attempt of a query, decoded as each series' labels.
  ApiResult<std::vector<SeriesLabels>> series_labels(const std::string& promql,
                                                     std::int64_t eval_time_ms);
  // One attempt of a query, decoded as bytes/s per pod (parse_pod_traffic).
  ApiResult<PodTrafficAnswer> pod_traffic(const std::string& promql, std::int64_t eval_time_ms);
  // One attempt of GET /api/v1/rules?type=record. A server without a rules API answers 404.
  ApiResult<std::vector<RecordingRule>> recording_rules();

  bool aborted() const { return client_.aborted(); }

 private:
  // One attempt, or with a wait as many as the policy allows.
  HttpResult query_http(const std::string& promql, std::int64_t eval_time_ms,
                        const BackoffWait* wait, unsigned& attempts);

  PrometheusClient& client_;
  Policy policy_;
};

}  // namespace netscore::collector
