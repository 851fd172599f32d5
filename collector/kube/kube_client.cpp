#include "collector/kube/kube_client.h"

#include <algorithm>
#include <cstdint>

#include <rapidjson/document.h>

namespace netscore::collector {
namespace {

HttpSession::Options session_options(KubeClient::Options& options) {
  const KubeConfig& k = options.kube;
  return {.tls = {.ca_file = k.ca_file},
          .tls_names = {.server = "the Kubernetes API server", .ca_file = "NETSCORE_KUBE_CA_FILE"},
          .bearer_token_file = k.token_file,
          // The one body this client sends is a merge patch.
          .headers = {"Accept: application/json", "Content-Type: application/merge-patch+json"},
          .connect_timeout = options.connect_timeout,
          .timeout = options.list_timeout,
          .max_body_bytes = options.max_body_bytes,
          .user_agent = options.user_agent,
          .stop = std::move(options.stop)};
}

}  // namespace

KubeClient::KubeClient(Options options)
    : base_url_(options.kube.url),
      list_timeout_(options.list_timeout),
      watch_grace_(options.watch_grace),
      session_(session_options(options)) {}

HttpResult KubeClient::list(std::string_view path, std::string_view parameters, unsigned limit,
                            const std::string& continue_token) {
  std::string url = base_url_;
  url.append(path).append("?limit=").append(std::to_string(limit)).append(parameters);
  if (!continue_token.empty()) url += "&continue=" + continue_token;
  return session_.get(url, list_timeout_);
}

HttpResult KubeClient::watch(std::string_view path, std::string_view parameters,
                             const std::string& resource_version, std::chrono::milliseconds timeout,
                             const HttpSession::LineHandler& on_line) {
  const auto timeout_s = std::max<std::int64_t>(1, timeout.count() / 1000);
  std::string url = base_url_;
  url.append(path)
      .append("?watch=1&allowWatchBookmarks=true&timeoutSeconds=")
      .append(std::to_string(timeout_s))
      .append("&resourceVersion=")
      .append(resource_version)
      .append(parameters);
  return session_.get_lines(url, timeout + watch_grace_, on_line);
}

HttpResult KubeClient::merge_patch(std::string_view path, std::string_view patch) {
  std::string url = base_url_;
  url.append(path);
  return session_.send("PATCH", url, patch);
}

std::string describe_kube_failure(const HttpResult& result) {
  std::string text = describe_failure(result);
  if (!result.answered()) return text;
  rapidjson::Document doc;
  doc.Parse(result.body.c_str());
  if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("message") &&
      doc["message"].IsString()) {
    text += ": " + std::string(doc["message"].GetString());
  }
  return text;
}

}  // namespace netscore::collector
