#pragma once

#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/config.h"

namespace netscore::collector {

// One Kubernetes API exchange. Transport errors (not reached, timed out, aborted) and HTTP
// statuses are kept apart, as for Prometheus.
struct KubeResponse {
  std::string transport_error{};  // empty when an HTTP answer arrived
  long http_status = 0;
  std::string
      body{};  // the whole body of a list or of a non-200 answer; empty for a streamed watch

  bool answered() const { return transport_error.empty(); }
  bool ok() const { return answered() && http_status == 200; }
};

// GET requests to the API server over libcurl: paginated list pages and streaming watches. The
// bearer token file is re-read for every request, so a rotated projected token is picked up by
// the next list or watch (and a failed read keeps the previous token). curl_global_init must have
// run. Not thread-safe: one watcher thread uses it; abort() may be called from any thread.
class KubeClient {
 public:
  struct Options {
    KubeConfig kube{};
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(5)};
    std::chrono::milliseconds list_timeout{std::chrono::seconds(60)};
    std::size_t max_body_bytes = 512U << 20;
    std::string user_agent = "netscore-collector";
  };

  explicit KubeClient(Options options);
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;
  ~KubeClient();

  // `target`: path and query, e.g. "/api/v1/nodes?limit=500".
  KubeResponse get(const std::string& target);

  // A watch: with status 200 every complete line of the stream (without its '\n'; a trailing
  // '\r' and empty lines dropped) goes to `on_line` as it arrives; on_line returning false ends
  // the watch. A non-200 body is returned whole. `timeout` bounds the whole request: set it a
  // little above the timeoutSeconds asked of the server, which normally ends the stream first.
  KubeResponse watch(const std::string& target, std::chrono::milliseconds timeout,
                     const std::function<bool(std::string_view)>& on_line);

  void abort() { aborted_.store(true, std::memory_order_relaxed); }
  bool aborted() const { return aborted_.load(std::memory_order_relaxed); }

 private:
  struct HandleDeleter {
    void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  };
  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* self);
  static int on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
  KubeResponse perform(const std::string& target, std::chrono::milliseconds timeout);

  Options options_;
  std::unique_ptr<CURL, HandleDeleter> curl_;
  std::string token_{};
  std::string body_{};
  std::size_t scanned_ = 0;  // bytes of body_ already searched for '\n'
  const std::function<bool(std::string_view)>* on_line_ = nullptr;
  bool too_large_ = false;
  bool stopped_by_consumer_ = false;
  std::atomic<bool> aborted_{false};
};

}  // namespace netscore::collector
