#include "collector/prometheus/prometheus_client.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace netscore::collector {
namespace {

struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
struct CurlString {
  char* text = nullptr;
  ~CurlString() { curl_free(text); }
};

void check(CURLcode code, const char* what) {
  if (code != CURLE_OK)
    throw std::runtime_error(std::string("libcurl ") + what + ": " + curl_easy_strerror(code));
}

// libcurl's code and detail, and which setting to look at for the TLS failures an operator can fix.
std::string describe_transport_error(CURLcode code, const char* detail, bool tls) {
  std::string text = curl_easy_strerror(code);
  if (detail[0] != '\0') text += std::string(" (") + detail + ")";
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
      return "TLS: Prometheus' certificate is not trusted, check NETSCORE_PROMETHEUS_CA_FILE: " +
             text;
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS: cannot use NETSCORE_PROMETHEUS_CA_FILE: " + text;
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
      return "TLS: cannot use the client certificate, check NETSCORE_PROMETHEUS_CERT_FILE and "
             "NETSCORE_PROMETHEUS_KEY_FILE: " +
             text;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_GOT_NOTHING:
      // A server that rejects the client certificate ends the connection with an alert or a
      // reset, depending on timing: both read the same to the operator.
      if (tls) {
        return "TLS: Prometheus ended the connection; if it requires a client certificate, check "
               "NETSCORE_PROMETHEUS_CERT_FILE and NETSCORE_PROMETHEUS_KEY_FILE: " +
               text;
      }
      return text;
    default:
      return text;
  }
}

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

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
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

PrometheusClient::PrometheusClient(Options options)
    : options_(std::move(options)), curl_(curl_easy_init()) {
  if (!curl_) throw std::runtime_error("libcurl: curl_easy_init failed");
  std::string base = options_.prometheus.url;
  while (base.ends_with('/')) base.pop_back();
  query_url_ = base + "/api/v1/query";
  redacted_url_ = redact_url(base);
  for (const auto& [name, value] : options_.prometheus.headers)
    extra_headers_.push_back(name + ": " + value);
  if (!options_.prometheus.headers_file.empty()) {
    for (const auto& [name, value] : read_headers_file(options_.prometheus.headers_file)) {
      extra_headers_.push_back(name + ": " + value);
    }
  }
  configure();
  install_headers({});
}

PrometheusClient::~PrometheusClient() = default;

void PrometheusClient::configure() {
  CURL* c = curl_.get();
  const auto& p = options_.prometheus;
  check(curl_easy_setopt(c, CURLOPT_URL, query_url_.c_str()), "URL");
  check(curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols");
  check(curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L), "nosignal");
  check(curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(p.connect_timeout.value.count())),
        "connect timeout");
  check(curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(p.timeout.value.count())),
        "timeout");
  check(curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str()), "user agent");
  check(curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""), "accept encoding");
  check(curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L), "keepalive");
  check(curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &PrometheusClient::on_body), "write function");
  check(curl_easy_setopt(c, CURLOPT_WRITEDATA, this), "write data");
  check(curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &PrometheusClient::on_progress),
        "progress function");
  check(curl_easy_setopt(c, CURLOPT_XFERINFODATA, this), "progress data");
  check(curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L), "noprogress");
  check(curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer_), "error buffer");
  if (!p.ca_file.empty()) check(curl_easy_setopt(c, CURLOPT_CAINFO, p.ca_file.c_str()), "CA file");
  if (!p.cert_file.empty())
    check(curl_easy_setopt(c, CURLOPT_SSLCERT, p.cert_file.c_str()), "client certificate");
  if (!p.key_file.empty())
    check(curl_easy_setopt(c, CURLOPT_SSLKEY, p.key_file.c_str()), "client key");
  if (p.insecure) {
    check(curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L), "verify peer");
    check(curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L), "verify host");
  }
}

std::string PrometheusClient::update_auth_header() {
  const std::string& file = options_.prometheus.bearer_token_file;
  if (file.empty()) return {};
  struct stat st {};
  if (stat(file.c_str(), &st) != 0) return "cannot stat bearer token file " + file;
  const std::int64_t mtime_ns =
      std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (have_token_ && mtime_ns == token_mtime_ns_) return {};
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return "cannot read bearer token file " + file;
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  if (token.empty()) return "bearer token file " + file + " is empty";
  install_headers("Authorization: Bearer " + token);
  token_mtime_ns_ = mtime_ns;
  have_token_ = true;
  return {};
}

void PrometheusClient::install_headers(const std::string& authorization) {
  std::unique_ptr<curl_slist, ListDeleter> list;
  const auto append = [&list](const std::string& header) {
    curl_slist* grown = curl_slist_append(list.get(), header.c_str());
    if (!grown) throw std::runtime_error("libcurl: cannot build the request headers");
    (void)list.release();
    list.reset(grown);
  };
  for (const auto& header : extra_headers_) append(header);
  if (!authorization.empty()) append(authorization);
  check(curl_easy_setopt(curl_.get(), CURLOPT_HTTPHEADER, list.get()), "headers");
  headers_ = std::move(list);
}

HttpResult PrometheusClient::query(std::string_view promql, std::int64_t eval_time_ms) {
  HttpResult result;
  if (std::string error = update_auth_header(); !error.empty()) {
    result.transport_error = std::move(error);
    return result;
  }
  CURL* c = curl_.get();
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(c, promql.data(), static_cast<int>(promql.size())), &curl_free);
  if (!escaped) {
    result.transport_error = "cannot encode the query";
    return result;
  }
  const std::string form =
      "query=" + std::string(escaped.get()) + "&time=" + format_eval_time(eval_time_ms);
  check(curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(form.size())),
        "post size");
  check(curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, form.c_str()), "post fields");
  response_.clear();
  error_buffer_[0] = '\0';
  body_too_large_ = false;
  const CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    if (body_too_large_) {
      result.transport_error =
          "response body exceeds " + std::to_string(options_.max_body_bytes) + " bytes";
    } else {
      result.transport_error =
          describe_transport_error(code, error_buffer_, query_url_.starts_with("https://"));
    }
    return result;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.http_status);
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &result.new_connections);
  result.body = std::move(response_);
  return result;
}

std::size_t PrometheusClient::on_body(char* data, std::size_t size, std::size_t count, void* self) {
  auto* client = static_cast<PrometheusClient*>(self);
  const std::size_t bytes = size * count;
  if (client->response_.size() + bytes > client->options_.max_body_bytes) {
    client->body_too_large_ = true;
    return 0;
  }
  client->response_.append(data, bytes);
  return bytes;
}

int PrometheusClient::on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<PrometheusClient*>(self)->aborted_.load(std::memory_order_relaxed) ? 1 : 0;
}

}  // namespace netscore::collector
