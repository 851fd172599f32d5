#include "tests/integration/support/http_client.h"

#include <curl/curl.h>

#include <memory>

namespace netscore::testing {
namespace {

HttpReply perform(const std::string& url, const std::string* post_body, std::chrono::milliseconds timeout) {
  HttpReply reply;
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return reply;
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, &curl_slist_free_all);
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, +[](char* data, std::size_t size, std::size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
  });
  if (post_body != nullptr) {
    headers.reset(curl_slist_append(nullptr, "Content-Type: application/json"));
    curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, post_body->c_str());
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(post_body->size()));
  }
  if (curl_easy_perform(curl.get()) != CURLE_OK) return {};
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

}  // namespace

HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) { return perform(url, nullptr, timeout); }

HttpReply http_post(const std::string& url, const std::string& body, std::chrono::milliseconds timeout) {
  return perform(url, &body, timeout);
}

}  // namespace netscore::testing
