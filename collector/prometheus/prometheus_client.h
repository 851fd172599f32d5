#pragma once

#include <cstddef>
#include <cstdint>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collector/http/http_session.h"
#include "common/config.h"

namespace netscore::collector {

// POST /api/v1/query (and GET /api/v1/rules) over one HttpSession, so refreshes share a keep-alive
// connection. curl_global_init must have run (main does it once). Not thread-safe: one refresh
// thread uses it; abort() alone may be called from any thread.
class PrometheusClient {
 public:
  struct Options {
    PrometheusConfig prometheus;
    std::size_t max_body_bytes = 256U << 20;
    std::string user_agent = "netscore-collector";
  };

  explicit PrometheusClient(Options options);
  PrometheusClient(const PrometheusClient&) = delete;
  PrometheusClient& operator=(const PrometheusClient&) = delete;

  // One attempt: the query evaluated at `eval_time_ms` (Unix milliseconds).
  HttpResult query(std::string_view promql, std::int64_t eval_time_ms);
  // One attempt: GET /api/v1/rules?type=record, the recording rules Prometheus evaluates.
  HttpResult recording_rules();

  // Makes the attempt in flight (and later ones) end with a transport error; for shutdown.
  void abort() { stop_.request_stop(); }
  bool aborted() const { return stop_.stop_requested(); }

  // The base URL with any user:password replaced, safe to log.
  const std::string& redacted_url() const { return redacted_url_; }

 private:
  std::stop_source stop_;
  std::string query_url_;
  std::string rules_url_;
  std::string redacted_url_;
  HttpSession session_;
};

// The "Name: value" lines of a headers file (blank lines and lines starting with '#' ignored).
// Throws std::runtime_error naming the file and the line, never its value.
std::vector<std::pair<std::string, std::string>> read_headers_file(const std::string& path);

// Redacts the userinfo of a URL ("http://user:pw@host" → "http://REDACTED@host").
std::string redact_url(const std::string& url);

}  // namespace netscore::collector
