#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

// Loopback HTTP client code shared by the extender load tool and the soak.
namespace netscore::bench {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

inline Request post_json(const std::string& target, std::string body) {
  Request req{http::verb::post, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/json");
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

inline Request get(const std::string& target) {
  Request req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  return req;
}

// One keep-alive HTTP/1.1 connection to 127.0.0.1:port. Every exchange has a deadline (Beast's
// timeouts only apply to asynchronous operations, so each exchange runs its own io_context),
// which keeps a client loop bounded even when the server stops answering.
// Not thread-safe: one client per thread.
class KeepAliveClient {
 public:
  KeepAliveClient(std::uint16_t port, std::chrono::milliseconds timeout) : port_(port), timeout_(timeout) {
    connect();
  }

  // Throws boost::system::system_error on a transport failure or timeout; the connection is
  // then unusable until reconnect().
  Response send(const Request& req) {
    Response res;
    boost::system::error_code result;
    stream_.expires_after(timeout_);
    http::async_write(stream_, req, [&](boost::system::error_code ec, std::size_t) {
      if (ec) {
        result = ec;
        return;
      }
      http::async_read(stream_, buffer_, res, [&](boost::system::error_code read_ec, std::size_t) { result = read_ec; });
    });
    ioc_.restart();
    ioc_.run();
    if (result) throw boost::system::system_error(result);
    return res;
  }

  void reconnect() {
    boost::system::error_code ignored;
    stream_.socket().close(ignored);
    buffer_.clear();
    connect();
  }

 private:
  void connect() {
    stream_.expires_after(timeout_);
    stream_.connect(boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port_});
    stream_.socket().set_option(boost::asio::ip::tcp::no_delay(true));
  }

  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_{ioc_};
  boost::beast::flat_buffer buffer_;
};

// Nearest-rank percentile; reorders v.
inline double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace netscore::bench
