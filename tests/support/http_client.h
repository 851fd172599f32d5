#pragma once

#include <chrono>
#include <string>
#include <vector>

// The test HTTP client: one request per call, to any URL (https, basic auth in the URL, client
// certificates), through libcurl. Thread-safe: each call has its own handle. The default timeout
// only ends a call to a hung server: it is far above what a sanitizer build on a loaded machine
// needs to answer. Tests that need one connection for several exchanges (keep-alive, raw bytes,
// seeing the server close) use http_connection.h.
namespace netscore::testing {

// How the test reaches a server: TLS trust, client certificate, basic auth.
struct ClientAuth {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string user_password;  // "user:password"; empty: none
};

struct HttpReply {
  long status = 0;  // 0: nothing answered (refused, timed out)
  std::string body{};
  std::string headers{};  // the raw header lines
};

HttpReply http_get(const std::string& url,
                   std::chrono::milliseconds timeout = std::chrono::seconds(15));
struct HttpRequest {
  std::string method = "GET";
  std::string url{};
  std::string body{};  // sent with content_type when non-empty or the method is POST
  std::string content_type = "application/json";
  std::vector<std::string> headers{};  // "Name: value"
  std::chrono::milliseconds timeout{std::chrono::seconds(15)};
  ClientAuth auth{};
};

HttpReply http_request(const HttpRequest& request);

// POST with Content-Type: application/json.
HttpReply http_post(const std::string& url, const std::string& body,
                    std::chrono::milliseconds timeout = std::chrono::seconds(15));

}  // namespace netscore::testing
