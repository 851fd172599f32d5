#include "extender/http/routes.h"

#include <spdlog/fmt/fmt.h>

namespace netscore::extender {
namespace http = boost::beast::http;

RouteMatch match_route(http::verb method, std::string_view path, bool metrics_listener) {
  for (const Route& r : kRoutes) {
    const bool matches = r.under_prefix ? path.ends_with(r.path) : path == r.path;
    if (!matches || (metrics_listener && !r.metrics_listener)) continue;
    const bool allowed = r.post ? method == http::verb::post
                                : method == http::verb::get || method == http::verb::head;
    RouteMatch m;
    m.verb = r.verb;
    if (allowed) {
      m.route = &r;
    } else {
      m.status = 405;
      m.allow = r.post ? "POST" : "GET, HEAD";
      m.error = r.post ? "use POST" : "use GET";
    }
    return m;
  }
  RouteMatch m;
  m.status = 404;
  m.error = metrics_listener ? "this listener (NETSCORE_METRICS_LISTEN) serves only " +
                                   served_paths(true, ", ", " and ")
                             : fmt::format("no endpoint {}; try {}", path.substr(0, 200),
                                           served_paths(false, ", ", ", "));
  return m;
}

std::string served_paths(bool metrics_listener, std::string_view separator, std::string_view last) {
  std::vector<std::string> paths;
  for (const Route& r : kRoutes) {
    if (metrics_listener && !r.metrics_listener) continue;
    paths.push_back(fmt::format("{}{}", r.under_prefix ? "[prefix]" : "", r.path));
  }
  std::string out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) out += i + 1 == paths.size() ? last : separator;
    out += paths[i];
  }
  return out;
}

}  // namespace netscore::extender
