#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/http/verb.hpp>

#include "extender/scheduler/request.h"

// The extender's endpoints as one table: it drives dispatch, the 404 and 405 (with Allow)
// answers on both listeners and every list of endpoints the extender prints. Pure data and
// functions: thread-safe.
namespace netscore::extender {

struct Route {
  Verb verb;
  std::string_view path;
  // The scheduler's verbs, answered under any path prefix: the scheduler's urlPrefix alone says
  // which, with nothing to keep in step here.
  bool under_prefix;
  bool post;  // POST only; every other route answers GET and HEAD
  // Also served by the NETSCORE_METRICS_LISTEN listener, which the cluster-wide scrape network
  // reaches: /explain names pods and stays off it.
  bool metrics_listener;
};

inline constexpr std::array<Route, 7> kRoutes = {{
    {Verb::filter, "/filter", true, true, false},
    {Verb::prioritize, "/prioritize", true, true, false},
    {Verb::table, "/table", false, false, true},
    {Verb::explain, "/explain", false, false, false},
    {Verb::healthz, "/healthz", false, false, true},
    {Verb::readyz, "/readyz", false, false, true},
    {Verb::metrics, "/metrics", false, false, true},
}};

// The route for a request, or the error that answers it: 404 for a path the listener does not
// serve (Verb::other), 405 with `allow` for a served path asked with another method.
struct RouteMatch {
  const Route* route = nullptr;  // set when the request goes to the route's handler
  unsigned status = 200;
  Verb verb = Verb::other;
  std::string_view allow;
  std::string error;
};
RouteMatch match_route(boost::beast::http::verb method, std::string_view path,
                       bool metrics_listener);

// The paths a listener serves, in table order, joined by `separator` (the last two by `last`).
std::string served_paths(bool metrics_listener, std::string_view separator, std::string_view last);

}  // namespace netscore::extender
