#include "extender/http/exchange.h"

#include <string>

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include "extender/scheduler/protocol.h"
#include "extender/views/table_html.h"

namespace netscore::extender {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

Reply framing_error(unsigned status, const std::string& message) {
  return {{status, "application/json", error_body(message), Verb::other, {}}, 11, false};
}

}  // namespace

void limit_request(RequestParser& parser, const ExtenderConfig& config) {
  parser.header_limit(kHeaderLimit);
  parser.body_limit(config.body_limit);
}

std::optional<Reply> answer_read(beast::error_code ec, RequestParser& parser, Handlers& handlers,
                                 const TableAttachment& table, std::int64_t now_mono_ns,
                                 bool draining, const ExtenderConfig& config) {
  if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
      ec == net::error::operation_aborted || ec == net::error::connection_reset ||
      ec == net::error::eof) {
    return std::nullopt;
  }
  if (ec == http::error::body_limit) {
    return framing_error(
        413, "request body exceeds the limit of " + std::to_string(config.body_limit) + " bytes");
  }
  if (ec == http::error::header_limit) return framing_error(431, "request header too large");
  if (ec) return framing_error(400, "malformed HTTP request: " + ec.message());

  auto& req = parser.get();
  const auto target = req.target();
  const auto accept = req[http::field::accept];
  Reply reply{
      handlers.handle(req.method(), std::string_view(target.data(), target.size()), req.body(),
                      table, now_mono_ns, std::string_view(accept.data(), accept.size())),
      req.version(), req.keep_alive() && !draining};
  if (req.method() == http::verb::head) reply.response.body.clear();
  return reply;
}

void build_response(Reply reply, HttpResponse& out) {
  Response& r = reply.response;
  out = {};
  out.result(r.status);
  out.version(reply.version);
  out.set(http::field::content_type,
          beast::string_view(r.content_type.data(), r.content_type.size()));
  if (!r.allow.empty())
    out.set(http::field::allow, beast::string_view(r.allow.data(), r.allow.size()));
  if (r.content_type.starts_with("text/html")) {
    out.set("Content-Security-Policy", beast::string_view(kHtmlCsp.data(), kHtmlCsp.size()));
    out.set("X-Content-Type-Options", "nosniff");
  }
  out.keep_alive(reply.keep_alive);
  out.body() = std::move(r.body);
  out.prepare_payload();
}

}  // namespace netscore::extender
