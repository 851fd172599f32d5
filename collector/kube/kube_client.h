#pragma once

#include <chrono>
#include <cstddef>
#include <stop_token>
#include <string>
#include <string_view>

#include "collector/http/http_session.h"
#include "common/config.h"

namespace netscore::collector {

// The shape of the Kubernetes API's list, watch and merge-patch requests, over one HttpSession
// (JSON, keep-alive, the bearer token file re-read when it changes). curl_global_init must have
// run. Not thread-safe: one watcher thread uses it; its stop token may be triggered from any
// thread, which ends a list or watch in flight at once.
class KubeClient {
 public:
  struct Options {
    KubeConfig kube{};
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(5)};
    std::chrono::milliseconds list_timeout{std::chrono::seconds(60)};
    // How long a watch may run past the timeoutSeconds asked of the server, which normally ends
    // the stream first, before it is abandoned as stalled.
    std::chrono::milliseconds watch_grace{std::chrono::seconds(30)};
    std::size_t max_body_bytes = 512U << 20;
    std::string user_agent = "netscore-collector";
    std::stop_token stop{};
  };

  explicit KubeClient(Options options);

  // One page of `path` (e.g. "/api/v1/pods"): at most `limit` items, from `continue_token`
  // (empty: the first page). `parameters`: more query parameters, each with its leading '&'.
  HttpResult list(std::string_view path, std::string_view parameters, unsigned limit,
                  const std::string& continue_token);

  // A watch of `path` from `resource_version`, with bookmarks, that the server ends after
  // `timeout` (whole seconds, at least one): with status 200 each event line goes to `on_line`
  // as it arrives, and on_line returning false ends the watch.
  HttpResult watch(std::string_view path, std::string_view parameters,
                   const std::string& resource_version, std::chrono::milliseconds timeout,
                   const HttpSession::LineHandler& on_line);

  // A JSON merge patch (RFC 7386) of the object at `path`; 200 with the object as patched.
  HttpResult merge_patch(std::string_view path, std::string_view patch);

  bool stopped() const { return session_.stopped(); }

 private:
  std::string base_url_;
  std::chrono::milliseconds list_timeout_;
  std::chrono::milliseconds watch_grace_;
  HttpSession session_;
};

// describe_failure(), with the message of a Kubernetes Status body when there is one.
std::string describe_kube_failure(const HttpResult& result);

}  // namespace netscore::collector
