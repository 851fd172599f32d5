#include "collector/prometheus/prometheus_client.h"

#include <curl/curl.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/trim.hpp>

namespace netscore::collector {
namespace {

struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
struct CurlString {
  char* text = nullptr;
  ~CurlString() { curl_free(text); }
};

std::string format_eval_time(std::int64_t eval_time_ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(eval_time_ms / 1000),
                static_cast<long long>(eval_time_ms % 1000));
  return text;
}

bool is_token(std::string_view name) {
  static constexpr std::string_view kSpecials = "!#$%&'*+-.^_`|~";
  if (name.empty()) return false;
  for (const char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && kSpecials.find(c) == std::string_view::npos) return false;
  }
  return true;
}

// HTTP's optional whitespace (space, tab) around a header's name and value, and at the end also
// the \r that std::getline leaves of a CRLF line ending.
std::string_view trim(std::string_view text) {
  using boost::algorithm::is_any_of;
  return boost::algorithm::trim_left_copy_if(
      boost::algorithm::trim_right_copy_if(text, is_any_of(" \t\r")), is_any_of(" \t"));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> read_headers_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("invalid NETSCORE_PROMETHEUS_HEADERS_FILE=\"" + path +
                             "\": cannot read the file");
  std::vector<std::pair<std::string, std::string>> headers;
  std::string line;
  for (unsigned number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const auto colon = text.find(':');
    const std::string_view name =
        colon == std::string_view::npos ? text : trim(text.substr(0, colon));
    if (colon == std::string_view::npos || !is_token(name)) {
      throw std::runtime_error("invalid NETSCORE_PROMETHEUS_HEADERS_FILE=\"" + path + "\": line " +
                               std::to_string(number) + " is not \"Name: value\"");
    }
    headers.emplace_back(std::string(name), std::string(trim(text.substr(colon + 1))));
  }
  return headers;
}

std::string redact_url(const std::string& url) {
  std::unique_ptr<CURLU, UrlDeleter> parsed(curl_url());
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    return "<unparsable url>";
  CurlString user;
  CurlString password;
  const bool has_user = curl_url_get(parsed.get(), CURLUPART_USER, &user.text, 0) == CURLUE_OK;
  const bool has_password =
      curl_url_get(parsed.get(), CURLUPART_PASSWORD, &password.text, 0) == CURLUE_OK;
  if (has_user || has_password) {
    curl_url_set(parsed.get(), CURLUPART_PASSWORD, nullptr, 0);
    curl_url_set(parsed.get(), CURLUPART_USER, "REDACTED", 0);
  }
  CurlString out;
  if (curl_url_get(parsed.get(), CURLUPART_URL, &out.text, 0) != CURLUE_OK)
    return "<unparsable url>";
  return out.text;
}

namespace {

HttpSession::Options session_options(const PrometheusClient::Options& options,
                                     std::stop_token stop) {
  const PrometheusConfig& p = options.prometheus;
  HttpSession::Options session{
      .tls = {.ca_file = p.ca_file,
              .cert_file = p.cert_file,
              .key_file = p.key_file,
              .insecure = p.insecure},
      .tls_names = {.server = "Prometheus",
                    .ca_file = "NETSCORE_PROMETHEUS_CA_FILE",
                    .client_cert =
                        "NETSCORE_PROMETHEUS_CERT_FILE and NETSCORE_PROMETHEUS_KEY_FILE"},
      .bearer_token_file = p.bearer_token_file,
      .connect_timeout = p.connect_timeout.value,
      .timeout = p.timeout.value,
      .max_body_bytes = options.max_body_bytes,
      .user_agent = options.user_agent,
      .stop = std::move(stop)};
  for (const auto& [name, value] : p.headers) session.headers.push_back(name + ": " + value);
  if (!p.headers_file.empty()) {
    for (const auto& [name, value] : read_headers_file(p.headers_file))
      session.headers.push_back(name + ": " + value);
  }
  return session;
}

std::string base_url(std::string url) {
  while (url.ends_with('/')) url.pop_back();
  return url;
}

}  // namespace

PrometheusClient::PrometheusClient(Options options)
    : query_url_(base_url(options.prometheus.url) + "/api/v1/query"),
      rules_url_(base_url(options.prometheus.url) + "/api/v1/rules?type=record"),
      redacted_url_(redact_url(base_url(options.prometheus.url))),
      session_(session_options(options, stop_.get_token())) {}

HttpResult PrometheusClient::query(std::string_view promql, std::int64_t eval_time_ms) {
  const std::optional<std::string> escaped = url_escape(promql);
  if (!escaped) return {.transport_error = "cannot encode the query"};
  return session_.post_form(query_url_,
                            "query=" + *escaped + "&time=" + format_eval_time(eval_time_ms));
}

HttpResult PrometheusClient::recording_rules() {
  return session_.get(rules_url_);
}

}  // namespace netscore::collector
