#include "tests/support/fake_http_server.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

namespace {

void forward(const std::string& base, const http::request<http::string_body>& request,
             CannedResponse& response) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  response.status = 502;
  response.body.clear();
  if (!curl) return;
  const std::string url = base + std::string(request.target());
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, 10000L);
  if (request.method() == http::verb::post) {
    curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body().size()));
    curl_easy_setopt(curl.get(), CURLOPT_COPYPOSTFIELDS, request.body().c_str());
  }
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(
      curl.get(), CURLOPT_WRITEFUNCTION,
      +[](char* data, std::size_t size, std::size_t count, void* body) {
        static_cast<std::string*>(body)->append(data, size * count);
        return size * count;
      });
  if (curl_easy_perform(curl.get()) != CURLE_OK) return;
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<unsigned>(status);
}

}  // namespace

FakeHttpServer::FakeHttpServer()
    : acceptor_(io_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
  port_ = acceptor_.local_endpoint().port();
  thread_ = std::thread([this] { serve(); });
}

FakeHttpServer::~FakeHttpServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopped_cv_.notify_all();
  // Wakes the blocking accept().
  boost::system::error_code ignored;
  tcp::socket poke(io_);
  poke.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port_), ignored);
  thread_.join();
}

void FakeHttpServer::respond_with(CannedResponse response) {
  std::lock_guard lock(mutex_);
  response_ = std::move(response);
}

void FakeHttpServer::respond_by(std::function<CannedResponse(const SeenRequest&)> responder) {
  std::lock_guard lock(mutex_);
  responder_ = std::move(responder);
}

void FakeHttpServer::forward_to(std::string base_url) {
  std::lock_guard lock(mutex_);
  forward_to_ = std::move(base_url);
}

std::uint64_t FakeHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

SeenRequest FakeHttpServer::last_request() const {
  std::lock_guard lock(mutex_);
  return last_;
}

void FakeHttpServer::serve() {
  for (;;) {
    tcp::socket socket(io_);
    boost::system::error_code ec;
    acceptor_.accept(socket, ec);
    CannedResponse response;
    std::string upstream;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      response = response_;
      upstream = forward_to_;
    }
    if (ec) continue;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(socket, buffer, request, ec);
    if (ec) continue;
    {
      std::unique_lock lock(mutex_);
      ++requests_;
      last_.target = std::string(request.target());
      last_.body = request.body();
      last_.headers.clear();
      for (const auto& field : request) {
        std::string name(field.name_string());
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        last_.headers[name] = std::string(field.value());
      }
      if (responder_) response = responder_(last_);
      if (stopped_cv_.wait_for(lock, response.delay, [this] { return stopping_; })) return;
    }
    if (!upstream.empty()) forward(upstream, request, response);
    http::response<http::string_body> answer{static_cast<http::status>(response.status), 11};
    answer.set(http::field::content_type, "application/json");
    answer.keep_alive(false);
    answer.body() = std::move(response.body);
    answer.prepare_payload();
    http::write(socket, answer, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }
}

}  // namespace netscore::testing
