#pragma once

#include <cstdint>
#include <optional>

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/http/handlers.h"

// One HTTP exchange of the server without its socket: the limits a request is read under, what a
// finished read turns into, and the response message sent for it. Server sessions and the
// http_request_fuzz target both go through these, so fuzzing covers the server's own logic.
// Pure functions of their arguments: thread-safe as long as the arguments are not shared.
namespace netscore::extender {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

inline constexpr std::uint32_t kHeaderLimit = 16 * 1024;

// Header limit kHeaderLimit, body limit ExtenderConfig::body_limit.
void limit_request(RequestParser& parser, const ExtenderConfig& config);

struct Reply {
  Response response;
  unsigned version = 11;
  bool keep_alive = false;
};

// The answer to a read that finished with `ec`, or nullopt when the connection just closes (the
// peer went away, timed out or was aborted). A framing error (body or header limit, malformed
// HTTP) is answered with 413/431/400 and closes, since the rest of the stream cannot be trusted;
// a complete request goes to `handlers` and keeps the connection when the client asked and the
// server is not draining.
std::optional<Reply> answer_read(boost::beast::error_code ec, RequestParser& parser,
                                 Handlers& handlers, const TableAttachment& table,
                                 std::int64_t now_mono_ns, bool draining,
                                 const ExtenderConfig& config);

// Replaces `out` with the reply as an HTTP message, Content-Length set.
void build_response(Reply reply, HttpResponse& out);

}  // namespace netscore::extender
