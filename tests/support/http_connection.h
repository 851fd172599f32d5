#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

// One HTTP/1.1 connection to 127.0.0.1:port for several exchanges (Beast): keep-alive, raw bytes,
// seeing the server close. Used by the extender server tests and the soak; a single
// request to a URL goes through http_client.h. Every operation has a deadline (Beast's timeouts
// only apply to asynchronous operations, so each runs its own io_context), which keeps a client
// loop bounded even when the server stops answering. Not thread-safe: one connection per thread.
namespace netscore::testing {

namespace http = boost::beast::http;
using WireRequest = http::request<http::string_body>;
using WireResponse = http::response<http::string_body>;

// Content-Type: application/json whatever the method, as the scheduler sends.
inline WireRequest json_request(http::verb method, const std::string& target, std::string body = {},
                                bool keep_alive = true) {
  WireRequest req{method, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/json");
  req.keep_alive(keep_alive);
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

inline WireRequest get_request(const std::string& target) {
  WireRequest req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  return req;
}

class HttpConnection {
 public:
  // The default deadline only ends an exchange with a hung server: it is far above what a
  // sanitizer build on a loaded machine needs to answer.
  explicit HttpConnection(std::uint16_t port,
                          std::chrono::milliseconds timeout = std::chrono::seconds(60))
      : port_(port), timeout_(timeout) {
    connect();
  }

  // Throws boost::system::system_error on a transport failure or timeout; the connection is
  // then unusable until reconnect().
  WireResponse send(const WireRequest& req) {
    run([&](auto done) { http::async_write(stream_, req, done); });
    return read();
  }
  WireResponse send(http::verb method, const std::string& target, std::string body = {},
                    bool keep_alive = true) {
    return send(json_request(method, target, std::move(body), keep_alive));
  }

  // One response, as send() reads it: for requests written with write_raw.
  WireResponse read() {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    run([&](auto done) { http::async_read(stream_, buffer_, parser, done); });
    return parser.release();
  }

  void write_raw(std::string_view bytes) {
    run([&](auto done) {
      boost::asio::async_write(stream_, boost::asio::buffer(bytes.data(), bytes.size()), done);
    });
  }

  // True when the server closes the connection (EOF or reset) within the deadline.
  bool closed_by_server() {
    char c = 0;
    const boost::system::error_code ec =
        exchange([&](auto done) { stream_.async_read_some(boost::asio::buffer(&c, 1), done); });
    return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
  }

  std::uint16_t local_port() const { return stream_.socket().local_endpoint().port(); }

  void reconnect() {
    boost::system::error_code ignored;
    stream_.socket().close(ignored);
    buffer_.clear();
    connect();
  }

 private:
  void connect() {
    stream_.expires_after(timeout_);
    stream_.connect(
        boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port_});
    stream_.socket().set_option(boost::asio::ip::tcp::no_delay(true));
  }

  // Runs one asynchronous operation to completion or the deadline; its error code.
  template <class Start>
  boost::system::error_code exchange(Start start) {
    boost::system::error_code result;
    stream_.expires_after(timeout_);
    start([&](boost::system::error_code ec, std::size_t) { result = ec; });
    ioc_.restart();
    ioc_.run();
    return result;
  }

  template <class Start>
  void run(Start start) {
    if (const auto ec = exchange(start)) throw boost::system::system_error(ec);
  }

  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_{ioc_};
  boost::beast::flat_buffer buffer_;
};

}  // namespace netscore::testing
