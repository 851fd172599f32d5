// Raw bytes on a connection, through the server's own exchange logic (extender/http/exchange.h:
// parser limits, read outcome → status, response message) and the handlers, without sockets: the
// input is read from memory in TCP-like chunks into a flat_buffer, one request_parser per request,
// as long as the server would keep the connection open. The first byte picks the chunk size (bits
// 0-2), a 1 KiB body limit instead of the default (bit 3) and a draining server (bit 4). Asserted:
// the connection closes silently only on end of input; a framing error gets a 4xx and closes; every
// status is one the metrics count; every response re-parses as HTTP with its Content-Length,
// carries no body for HEAD, and its JSON bodies parse ({"error":string} for 4xx).
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "extender/http/exchange.h"
#include "tests/fuzz/published_table.h"

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using netscore::extender::HttpResponse;

constexpr std::array<std::size_t, 8> kChunks = {
    std::numeric_limits<std::size_t>::max(), 1, 2, 7, 64, 536, 1460, 8192};
constexpr std::size_t kMaxRequests = 64;  // pipelined requests per input

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// A SyncReadStream over the input, `chunk` bytes per read, then end of file (the client
// half-closes).
class ChunkedBytes {
 public:
  ChunkedBytes(std::string_view bytes, std::size_t chunk) : rest_(bytes), chunk_(chunk) {}

  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers, beast::error_code& ec) {
    ec = {};
    if (rest_.empty()) {
      ec = net::error::eof;
      return 0;
    }
    const auto n =
        net::buffer_copy(buffers, net::buffer(rest_.data(), std::min(rest_.size(), chunk_)));
    rest_.remove_prefix(n);
    return n;
  }
  template <class MutableBuffers>
  std::size_t read_some(const MutableBuffers& buffers) {
    beast::error_code ec;
    const auto n = read_some(buffers, ec);
    if (ec) throw beast::system_error(ec);
    return n;
  }

 private:
  std::string_view rest_;
  std::size_t chunk_;
};

// Per-process state, built on the first input. Not thread-safe (libFuzzer runs one input at a
// time).
struct Fixture {
  netscore::fuzz::PublishedTable table;
  netscore::extender::SharedState shared{1};
  netscore::Config config = netscore::load_config(netscore::Component::extender, {}, {});
  netscore::Config small_body = config;

  Fixture() {
    spdlog::set_level(spdlog::level::off);  // a warning per rejected body would dominate the run
    for (auto* c : {&config, &small_body}) {
      c->shm.name = table.name;
      c->max_age = {std::chrono::hours(24), "24h"};
    }
    small_body.extender.body_limit = 1024;
  }
};

bool counted_status(unsigned status) {
  for (const unsigned code : netscore::extender::kCodes) {
    if (code == status) return true;
  }
  return false;
}

// What the client receives must be one well-framed HTTP response.
void check_wire(const HttpResponse& res, bool head) {
  std::ostringstream os;
  os << res;
  const std::string wire = os.str();
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  beast::error_code ec;
  const std::size_t used = parser.put(net::buffer(wire), ec);
  check(!ec && parser.is_done() && used == wire.size());
  const auto& msg = parser.get();
  check(msg.result_int() == res.result_int() && msg.body() == res.body());
  check(msg[http::field::content_length] == std::to_string(res.body().size()));
  check(!head || msg.body().empty());
  if (msg[http::field::content_type] != "application/json" || msg.body().empty()) return;
  rapidjson::Document doc;
  doc.Parse(msg.body().data(), msg.body().size());
  check(!doc.HasParseError());
  if (msg.result_int() >= 400)
    check(doc.IsObject() && doc.HasMember("error") && doc["error"].IsString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  if (size == 0) return 0;
  const std::uint8_t variant = data[0];
  const netscore::Config& config = (variant & 8) != 0 ? fixture.small_body : fixture.config;
  const bool draining = (variant & 16) != 0;
  ChunkedBytes stream({reinterpret_cast<const char*>(data) + 1, size - 1}, kChunks[variant & 7]);
  netscore::extender::Handlers handlers(config, fixture.shared, 0);

  beast::flat_buffer buffer;
  for (std::size_t i = 0; i < kMaxRequests; ++i) {
    netscore::extender::RequestParser parser;
    netscore::extender::limit_request(parser, config.extender);
    beast::error_code ec;
    http::read(stream, buffer, parser, ec);
    const bool head = !ec && parser.get().method() == http::verb::head;
    auto reply =
        netscore::extender::answer_read(ec, parser, handlers, fixture.table.attached,
                                        netscore::mono_now_ns(), draining, config.extender);
    if (!reply) {
      check(ec == http::error::end_of_stream);
      break;
    }
    const bool keep_alive = reply->keep_alive;
    check(!ec || (!keep_alive && reply->response.status >= 400 && reply->response.status < 500));
    check(!draining || !keep_alive);
    check(counted_status(reply->response.status));
    HttpResponse res;
    netscore::extender::build_response(std::move(*reply), res);
    check(res.keep_alive() == keep_alive);
    check_wire(res, head);
    if (!keep_alive) break;
  }
  return 0;
}
