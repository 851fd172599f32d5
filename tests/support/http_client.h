#pragma once

#include <chrono>
#include <string>
#include <vector>

// A blocking HTTP/1.1 client for tests (libcurl, one connection per call). Thread-safe: each
// call has its own handle. The default timeout only ends a call to a hung server: it is far above
// what a sanitizer build on a loaded machine needs to answer.
namespace netscore::testing {

struct HttpReply {
  long status = 0;  // 0: nothing answered (refused, timed out)
  std::string body{};
  std::string headers{};  // the raw header lines
};

HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout = std::chrono::seconds(15));
struct HttpRequest {
  std::string method = "GET";
  std::string url{};
  std::string body{};                  // sent with Content-Type: application/json when non-empty
  std::vector<std::string> headers{};  // "Name: value"
  std::chrono::milliseconds timeout{std::chrono::seconds(15)};
};

HttpReply http_request(const HttpRequest& request);

// POST with Content-Type: application/json.
HttpReply http_post(const std::string& url, const std::string& body,
                    std::chrono::milliseconds timeout = std::chrono::seconds(15));

}  // namespace netscore::testing
