#include "collector/http/http_session.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace netscore::collector {
namespace {

void check(CURLcode code, const char* what) {
  if (code != CURLE_OK)
    throw std::runtime_error(std::string("libcurl ") + what + ": " + curl_easy_strerror(code));
}

std::string possessive(const std::string& name) {
  return name.ends_with('s') ? name + "'" : name + "'s";
}

}  // namespace

std::string describe_failure(const HttpResult& result) {
  if (!result.answered()) return "transport error: " + result.transport_error;
  return "http status " + std::to_string(result.http_status);
}

std::optional<std::string> url_escape(std::string_view text) {
  // The handle argument is unused by libcurl since 7.82.
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size())), &curl_free);
  if (!escaped) return std::nullopt;
  return std::string(escaped.get());
}

HttpSession::HttpSession(Options options)
    : options_(std::move(options)), multi_(curl_multi_init()), curl_(curl_easy_init()) {
  if (!multi_ || !curl_) throw std::runtime_error("libcurl: cannot create a session");
  configure();
  install_headers({});
}

HttpSession::~HttpSession() = default;

void HttpSession::configure() {
  CURL* c = curl_.get();
  check(curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https"), "protocols");
  check(curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L), "nosignal");
  check(curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                         static_cast<long>(options_.connect_timeout.count())),
        "connect timeout");
  check(curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str()), "user agent");
  check(curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""), "accept encoding");
  check(curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L), "keepalive");
  check(curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &HttpSession::on_body), "write function");
  check(curl_easy_setopt(c, CURLOPT_WRITEDATA, this), "write data");
  check(curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &HttpSession::on_progress),
        "progress function");
  check(curl_easy_setopt(c, CURLOPT_XFERINFODATA, this), "progress data");
  check(curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L), "noprogress");
  check(curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer_), "error buffer");
  const TlsFiles& tls = options_.tls;
  if (!tls.ca_file.empty())
    check(curl_easy_setopt(c, CURLOPT_CAINFO, tls.ca_file.c_str()), "CA file");
  if (!tls.cert_file.empty())
    check(curl_easy_setopt(c, CURLOPT_SSLCERT, tls.cert_file.c_str()), "client certificate");
  if (!tls.key_file.empty())
    check(curl_easy_setopt(c, CURLOPT_SSLKEY, tls.key_file.c_str()), "client key");
  if (tls.insecure) {
    check(curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L), "verify peer");
    check(curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L), "verify host");
  }
}

std::string HttpSession::refresh_token() {
  const std::string& file = options_.bearer_token_file;
  if (file.empty()) return {};
  struct stat st {};
  if (stat(file.c_str(), &st) != 0) return "cannot stat bearer token file " + file;
  const TokenFileVersion version{
      .device = st.st_dev,
      .inode = st.st_ino,
      .size = st.st_size,
      .modified_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  if (token_version_ == version) return {};
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return "cannot read bearer token file " + file;
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  if (token.empty()) return "bearer token file " + file + " is empty";
  install_headers("Authorization: Bearer " + token);
  token_version_ = version;
  return {};
}

void HttpSession::install_headers(const std::string& authorization) {
  std::unique_ptr<curl_slist, ListDeleter> list;
  const auto append = [&list](const std::string& header) {
    curl_slist* grown = curl_slist_append(list.get(), header.c_str());
    if (!grown) throw std::runtime_error("libcurl: cannot build the request headers");
    (void)list.release();
    list.reset(grown);
  };
  for (const auto& header : options_.headers) append(header);
  if (!authorization.empty()) append(authorization);
  check(curl_easy_setopt(curl_.get(), CURLOPT_HTTPHEADER, list.get()), "headers");
  headers_ = std::move(list);
}

HttpResult HttpSession::get(const std::string& url, std::chrono::milliseconds timeout) {
  check(curl_easy_setopt(curl_.get(), CURLOPT_HTTPGET, 1L), "GET");
  return perform(url, timeout, nullptr);
}

HttpResult HttpSession::post_form(const std::string& url, std::string_view form) {
  CURL* c = curl_.get();
  check(curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(form.size())),
        "post size");
  check(curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, std::string(form).c_str()), "post fields");
  return perform(url, {}, nullptr);
}

HttpResult HttpSession::send(const char* method, const std::string& url, std::string_view body) {
  CURL* c = curl_.get();
  check(curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size())),
        "body size");
  check(curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, std::string(body).c_str()), "body");
  check(curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method), "method");
  HttpResult result = perform(url, {}, nullptr);
  // The method stays set on the handle otherwise, and would be sent by the next GET or POST.
  check(curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, nullptr), "method");
  return result;
}

HttpResult HttpSession::get_lines(const std::string& url, std::chrono::milliseconds timeout,
                                  const LineHandler& on_line) {
  check(curl_easy_setopt(curl_.get(), CURLOPT_HTTPGET, 1L), "GET");
  return perform(url, timeout, &on_line);
}

HttpResult HttpSession::perform(const std::string& url, std::chrono::milliseconds timeout,
                                const LineHandler* on_line) {
  HttpResult result;
  if (stopped()) {
    result.transport_error = "stopped";
    return result;
  }
  if (std::string error = refresh_token(); !error.empty()) {
    result.transport_error = std::move(error);
    return result;
  }
  CURL* c = curl_.get();
  check(curl_easy_setopt(c, CURLOPT_URL, url.c_str()), "URL");
  const auto total = timeout.count() > 0 ? timeout : options_.timeout;
  check(curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(total.count())), "timeout");
  // A body announced larger than the cap is refused before it is read; on_body cuts the others. A
  // stream has no total to cap, only its unfinished line.
  const curl_off_t announced_cap = on_line ? 0 : static_cast<curl_off_t>(options_.max_body_bytes);
  check(curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, announced_cap), "size cap");
  body_.clear();
  scanned_ = 0;
  on_line_ = on_line;
  over_cap_ = false;
  ended_by_handler_ = false;
  error_buffer_[0] = '\0';
  const CURLcode code = transfer();
  on_line_ = nullptr;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.http_status);
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &result.new_connections);
  if (code != CURLE_OK && !ended_by_handler_) {
    result.transport_error =
        stopped() ? "stopped" : describe_transport_error(code, url.starts_with("https://"));
    return result;
  }
  if (on_line == nullptr || result.http_status != 200) result.body = std::move(body_);
  return result;
}

CURLcode HttpSession::transfer() {
  CURLM* multi = multi_.get();
  CURL* c = curl_.get();
  // The handle joins the multi handle for each transfer, whose connection cache keeps the
  // keep-alive connection between them.
  if (curl_multi_add_handle(multi, c) != CURLM_OK)
    throw std::runtime_error("libcurl: cannot start a transfer");
  CURLMcode failed = CURLM_OK;
  {
    // Wakes a transfer waiting on a silent server, so the progress callback ends it at once.
    const std::stop_callback wake(options_.stop, [multi] { curl_multi_wakeup(multi); });
    for (int running = 1; failed == CURLM_OK;) {
      failed = curl_multi_perform(multi, &running);
      if (failed != CURLM_OK || running == 0) break;
      failed = curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    }
  }
  CURLcode code = CURLE_FAILED_INIT;
  int queued = 0;
  while (const CURLMsg* message = curl_multi_info_read(multi, &queued)) {
    if (message->msg == CURLMSG_DONE && message->easy_handle == c) code = message->data.result;
  }
  curl_multi_remove_handle(multi, c);
  if (failed != CURLM_OK)
    throw std::runtime_error(std::string("libcurl: ") + curl_multi_strerror(failed));
  return code;
}

std::string HttpSession::describe_transport_error(CURLcode code, bool tls) const {
  if (over_cap_ || code == CURLE_FILESIZE_EXCEEDED)
    return "response body exceeds " + std::to_string(options_.max_body_bytes) + " bytes";
  std::string text = curl_easy_strerror(code);
  if (error_buffer_[0] != '\0') text += std::string(" (") + error_buffer_ + ")";
  const TlsSettingNames& names = options_.tls_names;
  if (names.server.empty()) return text;
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
      return "TLS: " + possessive(names.server) + " certificate is not trusted, check " +
             names.ca_file + ": " + text;
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS: cannot use " + names.ca_file + ": " + text;
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
      if (names.client_cert.empty()) return text;
      return "TLS: cannot use the client certificate, check " + names.client_cert + ": " + text;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_GOT_NOTHING:
      // A server that rejects the client certificate ends the connection with an alert or a
      // reset, depending on timing: both read the same to the operator.
      if (!tls || names.client_cert.empty()) return text;
      return "TLS: " + names.server + " ended the connection; if it requires a client " +
             "certificate, check " + names.client_cert + ": " + text;
    default:
      return text;
  }
}

std::size_t HttpSession::on_body(char* data, std::size_t size, std::size_t count, void* self) {
  auto& session = *static_cast<HttpSession*>(self);
  const std::size_t bytes = size * count;
  session.body_.append(data, bytes);
  if (session.on_line_ != nullptr) {
    long status = 0;
    curl_easy_getinfo(session.curl_.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status == 200) session.split_lines();
    if (session.ended_by_handler_) return 0;
  }
  if (session.body_.size() > session.options_.max_body_bytes) {
    session.over_cap_ = true;
    return 0;
  }
  return bytes;
}

void HttpSession::split_lines() {
  std::size_t start = 0;
  for (std::size_t nl; (nl = body_.find('\n', scanned_)) != std::string::npos;) {
    std::string_view line(body_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = scanned_ = nl + 1;
    if (!line.empty() && !(*on_line_)(line)) {
      ended_by_handler_ = true;
      return;
    }
  }
  body_.erase(0, start);
  scanned_ = body_.size();
}

int HttpSession::on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<HttpSession*>(self)->stopped() ? 1 : 0;
}

}  // namespace netscore::collector
