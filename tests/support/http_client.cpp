#include "tests/support/http_client.h"

#include <curl/curl.h>

#include <memory>

namespace netscore::testing {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

HttpReply http_request(const HttpRequest& request) {
  HttpReply reply;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return reply;
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr,
                                                                      &curl_slist_free_all);
  const auto add_header = [&](const std::string& line) {
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  };
  const ClientAuth& auth = request.auth;
  if (!auth.ca_file.empty()) curl_easy_setopt(curl.get(), CURLOPT_CAINFO, auth.ca_file.c_str());
  if (!auth.cert_file.empty())
    curl_easy_setopt(curl.get(), CURLOPT_SSLCERT, auth.cert_file.c_str());
  if (!auth.key_file.empty()) curl_easy_setopt(curl.get(), CURLOPT_SSLKEY, auth.key_file.c_str());
  if (!auth.user_password.empty())
    curl_easy_setopt(curl.get(), CURLOPT_USERPWD, auth.user_password.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, &append);
  if (request.method == "POST" || !request.body.empty()) {
    add_header("Content-Type: " + request.content_type);
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  }
  if (request.method != "GET" && request.method != "POST") {
    curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  for (const auto& h : request.headers) add_header(h);
  if (headers) curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (curl_easy_perform(curl.get()) != CURLE_OK) return {};
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) {
  return http_request({.url = url, .timeout = timeout});
}

HttpReply http_post(const std::string& url, const std::string& body,
                    std::chrono::milliseconds timeout) {
  return http_request({.method = "POST", .url = url, .body = body, .timeout = timeout});
}

}  // namespace netscore::testing
