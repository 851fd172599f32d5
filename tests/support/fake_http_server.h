#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <boost/asio/ip/tcp.hpp>

// A blocking HTTP/1.1 server on 127.0.0.1 answering every request with a canned response, for
// faults a real Prometheus cannot produce (500s, truncated or huge bodies, slow answers), or
// forwarding it to a real server while recording what was sent. One
// request per connection (Connection: close). Thread-safe: respond_with() and the accessors may
// be called while the server thread serves.
namespace netscore::testing {

struct CannedResponse {
  unsigned status = 200;
  std::string body;
  std::chrono::milliseconds delay{0};  // before answering; cut short by the destructor
};

struct SeenRequest {
  std::string target;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

class FakeHttpServer {
 public:
  FakeHttpServer();
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;
  ~FakeHttpServer();

  void respond_with(CannedResponse response);
  // The answer chosen per request (by its target and body) instead of one canned response.
  void respond_by(std::function<CannedResponse(const SeenRequest&)> responder);
  // A reverse proxy instead: each request's target and body go to this base URL and its status
  // and body are the answer, so a test sees what a real server was sent.
  void forward_to(std::string base_url);
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::uint64_t requests() const;
  SeenRequest last_request() const;

 private:
  void serve();

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable stopped_cv_;
  bool stopping_ = false;
  CannedResponse response_;
  std::function<CannedResponse(const SeenRequest&)> responder_;
  std::string forward_to_;
  std::uint64_t requests_ = 0;
  SeenRequest last_;
  std::thread thread_;
};

}  // namespace netscore::testing
