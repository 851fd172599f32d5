#include "collector/kube/kube_client.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace netscore::collector {
namespace {

void check(CURLcode code, const char* what) {
  if (code != CURLE_OK)
    throw std::runtime_error(std::string("libcurl ") + what + ": " + curl_easy_strerror(code));
}

}  // namespace

KubeClient::KubeClient(Options options) : options_(std::move(options)), curl_(curl_easy_init()) {
  if (!curl_) throw std::runtime_error("libcurl: curl_easy_init failed");
  CURL* c = curl_.get();
  const KubeConfig& k = options_.kube;
  check(curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols");
  check(curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L), "nosignal");
  check(curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(options_.connect_timeout.count())),
        "connect timeout");
  check(curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str()), "user agent");
  check(curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""), "accept encoding");
  check(curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L), "keepalive");
  check(curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &KubeClient::on_body), "write function");
  check(curl_easy_setopt(c, CURLOPT_WRITEDATA, this), "write data");
  check(curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &KubeClient::on_progress),
        "progress function");
  check(curl_easy_setopt(c, CURLOPT_XFERINFODATA, this), "progress data");
  check(curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L), "noprogress");
  if (!k.ca_file.empty()) check(curl_easy_setopt(c, CURLOPT_CAINFO, k.ca_file.c_str()), "CA file");
  if (k.insecure) {
    check(curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L), "verify peer");
    check(curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L), "verify host");
  }
}

KubeClient::~KubeClient() = default;

KubeResponse KubeClient::get(const std::string& target) {
  on_line_ = nullptr;
  return perform(target, options_.list_timeout);
}

KubeResponse KubeClient::watch(const std::string& target, std::chrono::milliseconds timeout,
                               const std::function<bool(std::string_view)>& on_line) {
  on_line_ = &on_line;
  KubeResponse r = perform(target, timeout);
  on_line_ = nullptr;
  return r;
}

KubeResponse KubeClient::perform(const std::string& target, std::chrono::milliseconds timeout) {
  KubeResponse result;
  if (aborted()) {
    result.transport_error = "stopped";
    return result;
  }
  CURL* c = curl_.get();
  const std::string& file = options_.kube.token_file;
  if (!file.empty()) {
    // Re-opened every time: a projected token is swapped through a symlink rename.
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::string token = text.str();
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
      token.pop_back();
    if (in && !token.empty()) token_ = std::move(token);
    if (token_.empty()) {
      result.transport_error = "cannot read the token file " + file;
      return result;
    }
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
      curl_slist_append(nullptr, "Accept: application/json"), &curl_slist_free_all);
  if (!token_.empty()) {
    headers.reset(
        curl_slist_append(headers.release(), ("Authorization: Bearer " + token_).c_str()));
  }
  const std::string url = options_.kube.url + target;
  check(curl_easy_setopt(c, CURLOPT_URL, url.c_str()), "URL");
  check(curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get()), "headers");
  check(curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count())), "timeout");
  body_.clear();
  scanned_ = 0;
  too_large_ = false;
  stopped_by_consumer_ = false;
  const CURLcode code = curl_easy_perform(c);
  check(curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr), "headers");
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.http_status);
  if (code != CURLE_OK && !stopped_by_consumer_) {
    result.transport_error = too_large_ ? "response body too large" : curl_easy_strerror(code);
    if (aborted()) result.transport_error = "stopped";
    return result;
  }
  if (on_line_ == nullptr || result.http_status != 200) result.body = std::move(body_);
  return result;
}

std::size_t KubeClient::on_body(char* data, std::size_t size, std::size_t count, void* self) {
  auto* client = static_cast<KubeClient*>(self);
  const std::size_t bytes = size * count;
  if (client->body_.size() + bytes > client->options_.max_body_bytes) {
    client->too_large_ = true;
    return 0;
  }
  client->body_.append(data, bytes);
  long status = 0;
  curl_easy_getinfo(client->curl_.get(), CURLINFO_RESPONSE_CODE, &status);
  if (client->on_line_ == nullptr || status != 200) return bytes;
  // Events are newline-terminated; one read can hold several, or part of one.
  std::size_t start = 0;
  for (std::size_t nl; (nl = client->body_.find('\n', client->scanned_)) != std::string::npos;) {
    std::string_view line(client->body_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = client->scanned_ = nl + 1;
    if (!line.empty() && !(*client->on_line_)(line)) {
      client->stopped_by_consumer_ = true;
      return 0;
    }
  }
  client->body_.erase(0, start);
  client->scanned_ = client->body_.size();
  return bytes;
}

int KubeClient::on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<KubeClient*>(self)->aborted() ? 1 : 0;
}

}  // namespace netscore::collector
