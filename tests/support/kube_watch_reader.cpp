#include "tests/support/kube_watch_reader.h"

#include <poll.h>
#include <sys/socket.h>

namespace netscore::testing {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

KubeWatchReader::KubeWatchReader(std::uint16_t port, const std::string& target,
                                 const std::string& bearer_token, std::chrono::milliseconds timeout)
    : socket_(io_), timeout_(timeout) {
  socket_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::accept, "application/json");
  if (!bearer_token.empty()) request.set(http::field::authorization, "Bearer " + bearer_token);
  http::write(socket_, request);
  parser_.body_limit(boost::none);
  parser_.eager(true);
  while (!parser_.is_header_done()) {
    if (!read_more()) return;
  }
  status_ = parser_.get().result_int();
}

bool KubeWatchReader::read_more() {
  if (ended_ || failed_) return false;
  pollfd p{.fd = socket_.native_handle(), .events = POLLIN, .revents = 0};
  char chunk[65536];
  const ssize_t n = ::poll(&p, 1, static_cast<int>(timeout_.count())) == 1
                        ? ::recv(socket_.native_handle(), chunk, sizeof chunk, 0)
                        : -1;
  if (n <= 0) {
    failed_ = true;
    return false;
  }
  unparsed_.append(chunk, static_cast<std::size_t>(n));
  while (!unparsed_.empty() && !parser_.is_done()) {
    boost::system::error_code ec;
    const std::size_t used = parser_.put(boost::asio::buffer(unparsed_), ec);
    unparsed_.erase(0, used);
    if (ec == http::error::need_more) break;
    if (ec) {
      failed_ = true;
      return false;
    }
    if (used == 0) break;
  }
  if (parser_.is_done()) ended_ = true;
  if (parser_.is_header_done()) {
    const std::string& body = parser_.get().body();
    for (std::size_t nl; (nl = body.find('\n', consumed_)) != std::string::npos;
         consumed_ = nl + 1) {
      lines_.push_back(body.substr(consumed_, nl - consumed_));
    }
  }
  return true;
}

bool KubeWatchReader::wait_for_lines(std::size_t count) {
  while (lines_.size() < count) {
    if (ended_ || !read_more()) return lines_.size() >= count;
  }
  return true;
}

bool KubeWatchReader::wait_for_end() {
  while (!ended_) {
    if (!read_more()) return false;
  }
  return true;
}

}  // namespace netscore::testing
