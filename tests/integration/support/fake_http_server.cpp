#include "tests/integration/support/fake_http_server.h"

#include <algorithm>
#include <cctype>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

FakeHttpServer::FakeHttpServer() : acceptor_(io_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
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
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      response = response_;
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
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        last_.headers[name] = std::string(field.value());
      }
      if (stopped_cv_.wait_for(lock, response.delay, [this] { return stopping_; })) return;
    }
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
