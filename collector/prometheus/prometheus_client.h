#pragma once

#include <curl/curl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config.h"

namespace netscore::collector {

// One attempt's outcome. A transport error (no HTTP answer: connect refused, timeout, TLS, body
// too large, aborted) and an HTTP status are kept apart: the first says Prometheus was not
// reached, the second that it answered and what.
struct HttpResult {
  std::string transport_error;  // empty when an HTTP answer arrived
  long http_status = 0;
  std::string body;
  long new_connections = 0;  // 0 when the keep-alive connection was reused

  bool answered() const { return transport_error.empty(); }
  bool ok() const { return answered() && http_status == 200; }
};

// POST /api/v1/query over one reused libcurl easy handle, so refreshes share a keep-alive
// connection. curl_global_init must have run (main does it once).
// Not thread-safe: one refresh thread uses it; abort() alone may be called from any thread.
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
  ~PrometheusClient();

  // One attempt: the query evaluated at `eval_time_ms` (Unix milliseconds).
  HttpResult query(std::string_view promql, std::int64_t eval_time_ms);

  // Makes the attempt in flight (and later ones) end with a transport error; for shutdown.
  void abort() { aborted_.store(true, std::memory_order_relaxed); }
  bool aborted() const { return aborted_.load(std::memory_order_relaxed); }

  // The base URL with any user:password replaced, safe to log.
  const std::string& redacted_url() const { return redacted_url_; }

 private:
  struct HandleDeleter {
    void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  };
  struct ListDeleter {
    void operator()(curl_slist* list) const { curl_slist_free_all(list); }
  };

  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* self);
  static int on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
  void configure();
  // Empty on success, else why the token could not be used.
  std::string update_auth_header();
  void install_headers(const std::string& authorization);

  Options options_;
  std::string query_url_;
  std::string redacted_url_;
  std::unique_ptr<CURL, HandleDeleter> curl_;
  std::unique_ptr<curl_slist, ListDeleter> headers_;
  std::string response_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
  bool body_too_large_ = false;
  std::atomic<bool> aborted_{false};
  // The token file is re-read when its modification time changes (projected service-account
  // tokens are rotated in place).
  std::int64_t token_mtime_ns_ = -1;
  bool have_token_ = false;
  std::vector<std::string>
      extra_headers_;  // "Name: value" from the configuration and the headers file
};

// The "Name: value" lines of a headers file (blank lines and lines starting with '#' ignored).
// Throws std::runtime_error naming the file and the line, never its value.
std::vector<std::pair<std::string, std::string>> read_headers_file(const std::string& path);

// Redacts the userinfo of a URL ("http://user:pw@host" → "http://REDACTED@host").
std::string redact_url(const std::string& url);

}  // namespace netscore::collector
