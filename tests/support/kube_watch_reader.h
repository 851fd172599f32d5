#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>

// A raw HTTP client for one Kubernetes watch stream, for tests that check what a (fake) API
// server sends byte for byte: the status, then the newline-terminated event lines as they arrive.
// Every read is bounded by `timeout`. Not thread-safe: one test thread reads.
namespace netscore::testing {

class KubeWatchReader {
 public:
  // `target` is the path and query, e.g. "/api/v1/pods?watch=1&resourceVersion=5".
  KubeWatchReader(std::uint16_t port, const std::string& target,
                  const std::string& bearer_token = {},
                  std::chrono::milliseconds timeout = std::chrono::seconds(10));

  unsigned status() const { return status_; }
  // Reads until `count` complete lines arrived in total (true), the stream ended or a read timed
  // out.
  bool wait_for_lines(std::size_t count);
  // Reads until the server ends the response; true when it ended cleanly (final chunk).
  bool wait_for_end();
  const std::vector<std::string>& lines() const { return lines_; }
  bool ended() const { return ended_; }
  bool failed() const { return failed_; }  // connection dropped or timed out mid-stream

 private:
  // Waits at most timeout_ for bytes and feeds them to the parser. Asio's blocking reads poll
  // without a timeout (SO_RCVTIMEO does not bound them), hence the explicit poll().
  bool read_more();

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::chrono::milliseconds timeout_;
  std::string unparsed_;
  boost::beast::http::response_parser<boost::beast::http::string_body> parser_;
  unsigned status_ = 0;
  std::size_t consumed_ = 0;  // body bytes already split into lines_
  std::vector<std::string> lines_;
  bool ended_ = false;
  bool failed_ = false;
};

}  // namespace netscore::testing
