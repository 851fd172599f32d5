#include "extender/http/routes.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace netscore::extender {
namespace {

namespace http = boost::beast::http;

TEST(RoutesTest, TheSchedulersVerbsAnswerUnderAnyPrefixTheRestAtTheRoot) {
  for (const std::string_view path : {"/ns/prioritize", "/prioritize", "/a/b/prioritize"}) {
    const RouteMatch prioritize = match_route(http::verb::post, path, false);
    ASSERT_NE(prioritize.route, nullptr) << path;
    EXPECT_EQ(prioritize.route->verb, Verb::prioritize);
  }
  EXPECT_EQ(match_route(http::verb::post, "/ns/prioritizes", false).status, 404U);
  EXPECT_EQ(match_route(http::verb::post, "/nsprioritize", false).status, 404U);
  const RouteMatch head = match_route(http::verb::head, "/metrics", false);
  ASSERT_NE(head.route, nullptr);
  EXPECT_EQ(head.route->verb, Verb::metrics);
  EXPECT_EQ(match_route(http::verb::get, "/ns/metrics", false).status, 404U);
}

TEST(RoutesTest, WrongMethodIs405WithAllow) {
  const RouteMatch get = match_route(http::verb::get, "/ns/filter", false);
  EXPECT_EQ(get.status, 405U);
  EXPECT_EQ(get.verb, Verb::filter);
  EXPECT_EQ(get.allow, "POST");
  EXPECT_EQ(get.error, "use POST");
  const RouteMatch post = match_route(http::verb::post, "/table", false);
  EXPECT_EQ(post.status, 405U);
  EXPECT_EQ(post.allow, "GET, HEAD");
  EXPECT_EQ(post.error, "use GET");
}

TEST(RoutesTest, UnknownPathListsEveryEndpoint) {
  const RouteMatch m = match_route(http::verb::get, "/nope", false);
  EXPECT_EQ(m.status, 404U);
  EXPECT_EQ(m.verb, Verb::other);
  EXPECT_EQ(
      m.error,
      "no endpoint /nope; try [prefix]/filter, [prefix]/prioritize, /table, /explain, /healthz, "
      "/readyz, /metrics");
}

TEST(RoutesTest, MetricsListenerServesOnlyItsRoutes) {
  for (const std::string_view path : {"/ns/prioritize", "/explain", "/nope"}) {
    const RouteMatch m = match_route(http::verb::post, path, true);
    EXPECT_EQ(m.status, 404U) << path;
    EXPECT_EQ(m.error,
              "this listener (NETSCORE_METRICS_LISTEN) serves only /table, /healthz, /readyz and "
              "/metrics");
  }
  EXPECT_NE(match_route(http::verb::get, "/readyz", true).route, nullptr);
  EXPECT_EQ(served_paths(true, ",", ","), "/table,/healthz,/readyz,/metrics");
}

}  // namespace
}  // namespace netscore::extender
