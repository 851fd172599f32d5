#pragma once

#include <curl/curl.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace netscore::collector {

// One exchange's outcome. A transport error (no HTTP answer: not reached, timed out, TLS, body
// over the cap, stopped, an unusable token file) and an HTTP status are kept apart: the first says
// the server was not reached, the second that it answered and what.
struct HttpResult {
  std::string transport_error{};  // empty when an HTTP answer arrived
  long http_status = 0;
  std::string body{};        // the whole body, except a streamed 200's (its lines went out)
  long new_connections = 0;  // 0 when the keep-alive connection was reused

  bool answered() const { return transport_error.empty(); }
  bool ok() const { return answered() && http_status == 200; }
};

// "transport error: <why>" or "http status <n>": how every failure description starts.
std::string describe_failure(const HttpResult& result);

// Percent-encoding for a form or query value; nullopt when libcurl cannot allocate.
std::optional<std::string> url_escape(std::string_view text);

struct TlsFiles {
  std::string ca_file{};  // empty: the system CAs
  std::string cert_file{};
  std::string key_file{};
  bool insecure = false;  // no verification of the server's certificate and name
};

// What an operator knows the server and its TLS settings as, so that a TLS failure names the
// setting to check. Empty `server`: failures carry libcurl's text alone.
struct TlsSettingNames {
  std::string server{};       // "Prometheus"
  std::string ca_file{};      // "NETSCORE_PROMETHEUS_CA_FILE"
  std::string client_cert{};  // "NETSCORE_PROMETHEUS_CERT_FILE and ..."; empty: none to name
};

// Requests over one reused libcurl easy handle, so that they share a keep-alive connection.
// Every request sends the configured headers and, with a token file, "Authorization: Bearer
// <token>": the file is checked before each request and re-read when it is another file or was
// rewritten (a projected service-account token is swapped through a symlink rename, other
// tokens are rewritten in place); a file that cannot be read or is empty fails the request.
// curl_global_init must have run. Not thread-safe: one thread makes the requests; the stop token
// may be triggered from any thread, which ends the transfer in flight at once ("stopped") and
// refuses later ones.
class HttpSession {
 public:
  struct Options {
    TlsFiles tls{};
    TlsSettingNames tls_names{};
    std::string bearer_token_file{};     // empty: no Authorization header from a file
    std::vector<std::string> headers{};  // "Name: value"; values are never logged
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(5)};
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};  // a request's default
    std::size_t max_body_bytes = 256U << 20;  // of a whole body, or of a stream's unfinished line
    std::string user_agent = "netscore-collector";
    std::stop_token stop{};
  };
  // Receives each complete line of a streamed 200 (without '\n', a trailing '\r' dropped, empty
  // lines skipped); false ends the stream, which is no failure.
  using LineHandler = std::function<bool(std::string_view line)>;

  explicit HttpSession(Options options);
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;
  ~HttpSession();

  // `timeout` bounds the whole request; zero: the session's.
  HttpResult get(const std::string& url, std::chrono::milliseconds timeout = {});
  // An application/x-www-form-urlencoded POST of `form` (already encoded).
  HttpResult post_form(const std::string& url, std::string_view form);
  // A `method` request (e.g. "PATCH") with `body`, typed by a Content-Type among the session's
  // headers.
  HttpResult send(const char* method, const std::string& url, std::string_view body);
  // A GET whose 200 body is handed out line by line as it arrives (one read may hold several
  // lines or part of one); any other status' body is returned whole.
  HttpResult get_lines(const std::string& url, std::chrono::milliseconds timeout,
                       const LineHandler& on_line);

  bool stopped() const { return options_.stop.stop_requested(); }

 private:
  struct EasyDeleter {
    void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
  };
  struct MultiDeleter {
    void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
  };
  struct ListDeleter {
    void operator()(curl_slist* list) const { curl_slist_free_all(list); }
  };
  // The token file as last read: another inode, size or modification time means a new token.
  struct TokenFileVersion {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    std::int64_t modified_ns = 0;
    bool operator==(const TokenFileVersion&) const = default;
  };

  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* self);
  static int on_progress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
  void configure();
  // Empty when the headers carry the current token (or none is configured), else why not.
  std::string refresh_token();
  void install_headers(const std::string& authorization);
  HttpResult perform(const std::string& url, std::chrono::milliseconds timeout,
                     const LineHandler* on_line);
  CURLcode transfer();
  std::string describe_transport_error(CURLcode code, bool tls) const;
  void split_lines();

  Options options_;
  std::unique_ptr<CURLM, MultiDeleter> multi_;
  std::unique_ptr<CURL, EasyDeleter> curl_;
  std::unique_ptr<curl_slist, ListDeleter> headers_;
  std::optional<TokenFileVersion> token_version_;
  char error_buffer_[CURL_ERROR_SIZE] = {};
  // The transfer in flight.
  std::string body_;
  std::size_t scanned_ = 0;  // bytes of body_ already searched for '\n'
  const LineHandler* on_line_ = nullptr;
  bool over_cap_ = false;
  bool ended_by_handler_ = false;
};

}  // namespace netscore::collector
