#pragma once

#include <chrono>
#include <string>
#include <vector>

// A blocking HTTP/1.1 client for tests (libcurl, one connection per call). Thread-safe: each
// call has its own handle.
namespace netscore::testing {

struct HttpReply {
  long status = 0;  // 0: nothing answered (refused, timed out)
  std::string body{};
  std::string headers{};  // the raw header lines
};

struct HttpRequest {
  std::string method = "GET";
  std::string url{};
  std::string body{};                  // sent with Content-Type: application/json when non-empty
  std::vector<std::string> headers{};  // "Name: value"
  std::chrono::milliseconds timeout{std::chrono::seconds(2)};
};

HttpReply http_request(const HttpRequest& request);

HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout = std::chrono::seconds(2));
// POST with Content-Type: application/json.
HttpReply http_post(const std::string& url, const std::string& body,
                    std::chrono::milliseconds timeout = std::chrono::seconds(2));

}  // namespace netscore::testing
