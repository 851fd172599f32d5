// The fake API server's own conventions: what the watcher tests and the herd test rely on.
#include "tests/support/fake_kube_apiserver.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/kube_watch_reader.h"

namespace netscore::testing {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

std::uint16_t port_of(const FakeKubeApiServer& server) {
  const std::string url = server.url();
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

bool eventually_open(const FakeKubeApiServer& server, std::size_t streams) {
  return eventually([&] { return server.open_watches() == streams; });
}

kube::Pod pod_named(const std::string& name, const std::string& node = {}) {
  return kube::Pod{.ns = "shop", .name = name, .node = node};
}

TEST(FakeKubeApiServer, PaginatedListIsOneSnapshotWithOpaqueTokens) {
  FakeKubeApiServer server;
  for (int i = 0; i < 5; ++i) server.create_pod(pod_named("p" + std::to_string(i), "n1"));
  const std::string rv = std::to_string(server.resource_version());
  auto page = http_get(server.url() + "/api/v1/pods?limit=2");
  ASSERT_EQ(page.status, 200);
  auto doc = parse(page.body);
  EXPECT_STREQ(doc["kind"].GetString(), "PodList");
  EXPECT_EQ(doc["metadata"]["resourceVersion"].GetString(), rv);
  ASSERT_EQ(doc["items"].Size(), 2U);
  EXPECT_FALSE(doc["items"][0].HasMember("kind")) << "list items carry no kind";
  std::string token = doc["metadata"]["continue"].GetString();
  // A write between pages does not change the snapshot.
  server.create_pod(pod_named("later", "n1"));
  std::size_t total = 2;
  while (!token.empty()) {
    page = http_get(server.url() + "/api/v1/pods?limit=2&continue=" + token);
    ASSERT_EQ(page.status, 200) << page.body;
    doc = parse(page.body);
    EXPECT_EQ(doc["metadata"]["resourceVersion"].GetString(), rv);
    total += doc["items"].Size();
    token = doc["metadata"].HasMember("continue") ? doc["metadata"]["continue"].GetString() : "";
  }
  EXPECT_EQ(total, 5U);
}

TEST(FakeKubeApiServer, EmptyListHasEmptyItemsAndBadRequestsAre4xx) {
  FakeKubeApiServer server;
  const auto reply = http_get(server.url() + "/api/v1/nodes");
  ASSERT_EQ(reply.status, 200);
  EXPECT_NE(reply.body.find(R"("items":[])"), std::string::npos) << reply.body;
  EXPECT_EQ(http_get(server.url() + "/api/v1/pods?fieldSelector=spec.hostNetwork%3Dtrue").status,
            400);
  EXPECT_EQ(http_get(server.url() + "/api/v1/pods?labelSelector=app%3Dweb").status, 400);
  EXPECT_EQ(http_get(server.url() + "/api/v1/pods?continue=x&resourceVersion=5").status, 400);
  EXPECT_EQ(http_get(server.url() + "/api/v1/secrets").status, 404);
}

TEST(FakeKubeApiServer, ExpiredContinueTokenIsGone) {
  FakeKubeApiServer server;
  for (int i = 0; i < 3; ++i) server.create_pod(pod_named("p" + std::to_string(i), "n1"));
  const auto first = parse(http_get(server.url() + "/api/v1/pods?limit=1").body);
  const std::string token = first["metadata"]["continue"].GetString();
  server.expire_continue_tokens();
  const auto reply = http_get(server.url() + "/api/v1/pods?limit=1&continue=" + token);
  EXPECT_EQ(reply.status, 410);
  EXPECT_EQ(parse(reply.body)["reason"], "Expired");
}

TEST(FakeKubeApiServer, FieldSelectorFiltersBoundPods) {
  FakeKubeApiServer server;
  server.create_pod(pod_named("bound", "n1"));
  server.create_pod(pod_named("pending"));
  const auto doc =
      parse(http_get(server.url() + "/api/v1/pods?fieldSelector=spec.nodeName%21%3D").body);
  ASSERT_EQ(doc["items"].Size(), 1U);
  EXPECT_EQ(doc["items"][0]["metadata"]["name"], "bound");
  EXPECT_EQ(doc["items"][0]["status"]["conditions"][0]["type"], "PodScheduled");
}

TEST(FakeKubeApiServer, BindingIsAnAddedEventForBoundWatchersAndDeletedForUnbound) {
  FakeKubeApiServer server;
  server.create_pod(pod_named("web"));
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader bound(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv +
                                             "&fieldSelector=spec.nodeName%21%3D");
  KubeWatchReader unbound(port_of(server),
                          "/api/v1/namespaces/shop/pods?watch=true&resourceVersion=" + rv +
                              "&fieldSelector=spec.nodeName%3D");
  KubeWatchReader all(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  ASSERT_EQ(bound.status(), 200U);
  const std::string binding =
      R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"web","namespace":"shop"},"target":{"kind":"Node","name":"n3"}})";
  const auto reply = http_post(server.url() + "/api/v1/namespaces/shop/pods/web/binding", binding);
  ASSERT_EQ(reply.status, 201) << reply.body;
  EXPECT_EQ(parse(reply.body)["status"], "Success");
  EXPECT_EQ(http_post(server.url() + "/api/v1/namespaces/shop/pods/web/binding", binding).status,
            409);

  ASSERT_TRUE(bound.wait_for_lines(1));
  ASSERT_TRUE(unbound.wait_for_lines(1));
  ASSERT_TRUE(all.wait_for_lines(1));
  const auto added = parse(bound.lines()[0]);
  EXPECT_EQ(added["type"], "ADDED");
  EXPECT_EQ(added["object"]["spec"]["nodeName"], "n3");
  EXPECT_EQ(added["object"]["kind"], "Pod");
  EXPECT_EQ(added["object"]["metadata"]["resourceVersion"].GetString(),
            std::to_string(server.resource_version()));
  EXPECT_EQ(parse(unbound.lines()[0])["type"], "DELETED");
  EXPECT_EQ(parse(all.lines()[0])["type"], "MODIFIED");
  EXPECT_EQ(server.pods_per_node(), (std::map<std::string, unsigned>{{"n3", 1}}));
}

TEST(FakeKubeApiServer, CreateBindDeleteOverHttp) {
  FakeKubeApiServer server;
  const auto created = http_post(server.url() + "/api/v1/namespaces/shop/pods",
                                 R"({"metadata":{"name":"a","generateName":"runner-",)"
                                 R"("annotations":{"type":"space"}},"spec":{}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto pod = parse(created.body);
  EXPECT_EQ(pod["metadata"]["annotations"]["type"], "space");
  EXPECT_EQ(pod["metadata"]["name"], "a");  // a given name wins over generateName
  EXPECT_EQ(pod["metadata"]["generateName"], "runner-");
  EXPECT_EQ(http_post(server.url() + "/api/v1/namespaces/shop/pods", R"({"metadata":{"name":"a"}})")
                .status,
            409);
  const std::string wrong_uid =
      R"({"metadata":{"name":"a","uid":"other"},"target":{"kind":"Node","name":"n1"}})";
  EXPECT_EQ(http_post(server.url() + "/api/v1/namespaces/shop/pods/a/binding", wrong_uid).status,
            409);
  EXPECT_EQ(server.bind_pod("shop", "a", "n1"), 201U);
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader watch(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  const auto deleted =
      http_request({.method = "DELETE", .url = server.url() + "/api/v1/namespaces/shop/pods/a"});
  EXPECT_EQ(deleted.status, 200);
  ASSERT_TRUE(watch.wait_for_lines(2));
  const auto terminating = parse(watch.lines()[0]);
  EXPECT_EQ(terminating["type"], "MODIFIED");
  EXPECT_TRUE(terminating["object"]["metadata"].HasMember("deletionTimestamp"));
  EXPECT_EQ(parse(watch.lines()[1])["type"], "DELETED");
  EXPECT_FALSE(server.pod("shop", "a").has_value());
}

TEST(FakeKubeApiServer, MergePatchOfLabelsIsOneModifiedEvent) {
  FakeKubeApiServer server;
  server.create_pod(kube::Pod{.ns = "shop", .name = "a", .node = "n1", .labels = {{"app", "web"}}});
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader watch(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  const std::string url = server.url() + "/api/v1/namespaces/shop/pods/a";
  const auto merge = [&](const std::string& body, const std::string& type) {
    return http_request({.method = "PATCH", .url = url, .body = body, .content_type = type});
  };
  const auto set = merge(R"({"metadata":{"labels":{"netscore.io/rebalance":"evict"}}})",
                         "application/merge-patch+json");
  ASSERT_EQ(set.status, 200) << set.body;
  const auto patched = parse(set.body);
  EXPECT_EQ(patched["kind"], "Pod");
  EXPECT_EQ(patched["metadata"]["labels"]["netscore.io/rebalance"], "evict");
  EXPECT_EQ(patched["metadata"]["labels"]["app"], "web");  // merged, not replaced
  EXPECT_EQ(server.pod("shop", "a")->labels.at("netscore.io/rebalance"), "evict");
  const std::uint64_t after_set = server.resource_version();
  // The same patch again changes nothing: no new version, no event.
  EXPECT_EQ(merge(R"({"metadata":{"labels":{"netscore.io/rebalance":"evict"}}})",
                  "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(server.resource_version(), after_set);
  const auto removed = merge(R"({"metadata":{"labels":{"netscore.io/rebalance":null}}})",
                             "application/merge-patch+json");
  ASSERT_EQ(removed.status, 200) << removed.body;
  EXPECT_FALSE(parse(removed.body)["metadata"]["labels"].HasMember("netscore.io/rebalance"));
  ASSERT_TRUE(watch.wait_for_lines(2));
  EXPECT_EQ(parse(watch.lines()[0])["type"], "MODIFIED");
  EXPECT_EQ(parse(watch.lines()[1])["type"], "MODIFIED");
  EXPECT_EQ(server.counters().patches, 3U);

  EXPECT_EQ(merge(R"({"metadata":{"labels":{"x":"y"}}})", "application/json").status, 415);
  EXPECT_EQ(merge("[]", "application/merge-patch+json").status, 400);
  EXPECT_EQ(merge(R"({"metadata":{"labels":{"x":1}}})", "application/merge-patch+json").status,
            400);
  EXPECT_EQ(http_request({.method = "PATCH",
                          .url = server.url() + "/api/v1/namespaces/shop/pods/missing",
                          .body = "{}",
                          .content_type = "application/merge-patch+json"})
                .status,
            404);
}

TEST(FakeKubeApiServer, BookmarksOnlyWhenAllowed) {
  FakeKubeApiServer server;
  server.create_pod(pod_named("a", "n1"));
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader with(port_of(server),
                       "/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv);
  KubeWatchReader without(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  ASSERT_TRUE(eventually_open(server, 2));
  server.bookmark_now();
  ASSERT_TRUE(with.wait_for_lines(1));
  const auto bookmark = parse(with.lines()[0]);
  EXPECT_EQ(bookmark["type"], "BOOKMARK");
  EXPECT_EQ(bookmark["object"]["metadata"]["resourceVersion"].GetString(), rv);
  EXPECT_TRUE(bookmark["object"]["spec"]["containers"].IsNull());
  server.close_watches();
  ASSERT_TRUE(with.wait_for_end());
  ASSERT_TRUE(without.wait_for_end());
  EXPECT_EQ(with.lines().size(), 1U);
  EXPECT_TRUE(without.lines().empty());
}

TEST(FakeKubeApiServer, TimeoutSecondsEndsCleanlyAfterALastBookmark) {
  FakeKubeApiServer server;
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader with(
      port_of(server),
      "/api/v1/pods?watch=1&allowWatchBookmarks=1&timeoutSeconds=1&resourceVersion=" + rv);
  KubeWatchReader without(port_of(server),
                          "/api/v1/pods?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  ASSERT_TRUE(with.wait_for_end());
  ASSERT_TRUE(without.wait_for_end());
  ASSERT_EQ(with.lines().size(), 1U);
  EXPECT_EQ(parse(with.lines()[0])["type"], "BOOKMARK");
  EXPECT_TRUE(without.lines().empty());
}

TEST(FakeKubeApiServer, TooOldResourceVersionIsAnErrorEventOrHttp410) {
  FakeKubeApiServer server;
  server.create_pod(pod_named("a", "n1"));
  const std::string old_rv = std::to_string(server.resource_version() - 1);
  server.compact();
  KubeWatchReader watch(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + old_rv);
  EXPECT_EQ(watch.status(), 200U);
  ASSERT_TRUE(watch.wait_for_end());
  ASSERT_EQ(watch.lines().size(), 1U);
  const auto error = parse(watch.lines()[0]);
  EXPECT_EQ(error["type"], "ERROR");
  EXPECT_EQ(error["object"]["code"].GetInt(), 410);

  FakeKubeApiServer http_variant({.expired_watch_as_http_410 = true});
  http_variant.create_pod(pod_named("a", "n1"));
  http_variant.compact();
  EXPECT_EQ(http_get(http_variant.url() + "/api/v1/pods?watch=1&resourceVersion=100").status, 410);
}

TEST(FakeKubeApiServer, BoundedHistoryExpiresOldResourceVersions) {
  FakeKubeApiServer server({.history = 3});
  const std::uint64_t start = server.resource_version();
  for (int i = 0; i < 5; ++i) server.create_pod(pod_named("p" + std::to_string(i), "n1"));
  KubeWatchReader old(port_of(server),
                      "/api/v1/pods?watch=1&resourceVersion=" + std::to_string(start));
  ASSERT_TRUE(old.wait_for_end());
  EXPECT_EQ(parse(old.lines().at(0))["type"], "ERROR");
  KubeWatchReader recent(port_of(server), "/api/v1/pods?watch=1&timeoutSeconds=1&resourceVersion=" +
                                              std::to_string(start + 2));
  ASSERT_TRUE(recent.wait_for_lines(3));
  EXPECT_EQ(parse(recent.lines()[0])["object"]["metadata"]["name"], "p2");
}

TEST(FakeKubeApiServer, TokensAreCheckedAndRotate) {
  FakeKubeApiServer server;
  server.set_tokens({"old"}, {"denied"});
  const auto get_with = [&](const std::string& token) {
    return http_request(
        {.url = server.url() + "/api/v1/nodes", .headers = {"Authorization: Bearer " + token}});
  };
  EXPECT_EQ(get_with("old").status, 200);
  EXPECT_EQ(get_with("wrong").status, 401);
  EXPECT_EQ(parse(get_with("wrong").body)["reason"], "Unauthorized");
  EXPECT_EQ(get_with("denied").status, 403);
  EXPECT_EQ(http_get(server.url() + "/api/v1/nodes").status, 401);
  server.set_tokens({"new"});
  EXPECT_EQ(get_with("old").status, 401);
  EXPECT_EQ(get_with("new").status, 200);
  EXPECT_EQ(server.counters().unauthorized, 4U);
  EXPECT_EQ(server.counters().forbidden, 1U);
}

TEST(FakeKubeApiServer, InjectedFailuresCarryRetryAfter) {
  FakeKubeApiServer server;
  server.fail_next_requests(429, 1, 3);
  const auto reply = http_get(server.url() + "/api/v1/pods");
  EXPECT_EQ(reply.status, 429);
  EXPECT_NE(reply.headers.find("Retry-After: 3"), std::string::npos) << reply.headers;
  EXPECT_EQ(http_get(server.url() + "/api/v1/pods").status, 200);
}

TEST(FakeKubeApiServer, ClosedCutStalledAndMalformedStreams) {
  FakeKubeApiServer server;
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader closed(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  ASSERT_TRUE(eventually_open(server, 1));
  server.inject_watch_line(kube::Resource::pods, "{not json");
  ASSERT_TRUE(closed.wait_for_lines(1));
  EXPECT_EQ(closed.lines()[0], "{not json");
  server.close_watches();
  EXPECT_TRUE(closed.wait_for_end());
  EXPECT_TRUE(eventually_open(server, 0));

  KubeWatchReader cut(port_of(server), "/api/v1/nodes?watch=1&resourceVersion=" + rv);
  ASSERT_TRUE(eventually_open(server, 1));
  server.cut_watches();
  EXPECT_FALSE(cut.wait_for_end());
  EXPECT_TRUE(cut.failed());
  EXPECT_TRUE(eventually_open(server, 0));

  KubeWatchReader stalled(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv, {},
                          std::chrono::milliseconds(1500));
  ASSERT_TRUE(eventually_open(server, 1));
  server.stall_watches();
  server.create_pod(pod_named("held", "n1"));
  // The event never arrives: the reader's own read timeout ends the wait.
  EXPECT_FALSE(stalled.wait_for_lines(1));
  EXPECT_TRUE(stalled.failed());
}

TEST(FakeKubeApiServer, SplitWritesStillDeliverWholeLines) {
  FakeKubeApiServer server;
  server.split_event_writes(true);
  const std::string rv = std::to_string(server.resource_version());
  KubeWatchReader watch(port_of(server), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  ASSERT_TRUE(eventually_open(server, 1));
  server.create_pod(pod_named("a", "n1"));
  server.create_pod(pod_named("b", "n2"));
  ASSERT_TRUE(watch.wait_for_lines(2));
  EXPECT_EQ(parse(watch.lines()[1])["object"]["spec"]["nodeName"], "n2");
}

}  // namespace
}  // namespace netscore::testing
