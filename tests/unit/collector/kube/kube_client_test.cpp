// The shape of the list and watch requests against the fake API server (127.0.0.1), and how
// their failures read.
#include "collector/kube/kube_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <stop_token>
#include <string>
#include <vector>

#include "collector/kube/kube_objects.h"
#include "tests/support/curl_environment.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_kube_apiserver.h"

namespace netscore::collector {
namespace {

using testing::eventually;
using testing::FakeKubeApiServer;
namespace fs = std::filesystem;

std::size_t items_in(const HttpResult& page, std::string& continue_token) {
  rapidjson::Document doc;
  const auto parsed = parse_list_page(page.body, doc);
  if (!parsed) return 0;
  continue_token = parsed->continue_token;
  return parsed->items->Size();
}

TEST(KubeClient, ListsPageByPageOverOneConnection) {
  FakeKubeApiServer server;
  for (const char* name : {"n1", "n2", "n3"}) server.put_node(name);
  KubeClient client({.kube = {.url = server.url()}});
  std::string token;
  const HttpResult first = client.list("/api/v1/nodes", "", 2, token);
  ASSERT_TRUE(first.ok()) << describe_kube_failure(first);
  EXPECT_EQ(items_in(first, token), 2U);
  ASSERT_FALSE(token.empty());
  const HttpResult second = client.list("/api/v1/nodes", "", 2, token);
  ASSERT_TRUE(second.ok()) << describe_kube_failure(second);
  EXPECT_EQ(items_in(second, token), 1U);
  EXPECT_TRUE(token.empty());
  EXPECT_EQ(second.new_connections, 0) << "the keep-alive connection is reused";
  const auto targets = server.request_targets();
  ASSERT_EQ(targets.size(), 2U);
  EXPECT_EQ(targets[0], "GET /api/v1/nodes?limit=2");
  EXPECT_TRUE(targets[1].starts_with("GET /api/v1/nodes?limit=2&continue=")) << targets[1];
}

TEST(KubeClient, WatchesFromAResourceVersionLineByLine) {
  FakeKubeApiServer server;
  server.put_node("before");
  const std::string rv = std::to_string(server.resource_version());
  server.put_node("after");
  KubeClient client({.kube = {.url = server.url()}});
  std::vector<std::string> types;
  const HttpResult result =
      client.watch("/api/v1/nodes", "&fieldSelector=metadata.name%3Dafter", rv,
                   std::chrono::milliseconds(1500), [&](std::string_view line) {
                     rapidjson::Document doc;
                     const auto event = parse_watch_event(line, doc);
                     types.emplace_back(event ? event->type : "malformed");
                     return false;
                   });
  EXPECT_TRUE(result.ok()) << describe_kube_failure(result);
  EXPECT_EQ(types, std::vector<std::string>{"ADDED"});
  EXPECT_EQ(server.request_targets().back(),
            "GET /api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" +
                rv + "&fieldSelector=metadata.name%3Dafter");
}

TEST(KubeClient, SendsTheTokenOfTheFileAndDescribesARefusal) {
  FakeKubeApiServer server;
  server.set_tokens({"fresh"}, {"denied"});
  const fs::path file =
      fs::temp_directory_path() / ("netscore-kube-client-token-" + std::to_string(getpid()));
  std::ofstream(file) << "stale";
  KubeClient client({.kube = {.url = server.url(), .token_file = file.string()}});
  const HttpResult refused = client.list("/api/v1/pods", "", 10, "");
  EXPECT_EQ(describe_kube_failure(refused), "http status 401: Unauthorized");
  EXPECT_EQ(server.authorizations().back(), "Bearer stale");
  std::ofstream(file.string() + ".new") << "fresh";
  fs::rename(file.string() + ".new", file);
  EXPECT_TRUE(client.list("/api/v1/pods", "", 10, "").ok());
  EXPECT_EQ(server.authorizations().back(), "Bearer fresh");
  fs::remove(file);
}

TEST(KubeClient, FailuresReadAsTheStatusMessageWhenThereIsOne) {
  EXPECT_EQ(describe_kube_failure({.transport_error = "stopped"}), "transport error: stopped");
  EXPECT_EQ(describe_kube_failure({.http_status = 500, .body = "oops"}), "http status 500");
  EXPECT_EQ(describe_kube_failure({.http_status = 403, .body = R"({"message":"nope"})"}),
            "http status 403: nope");
}

TEST(KubeClient, StoppingEndsAWatchInFlight) {
  FakeKubeApiServer server;
  std::stop_source stop;
  KubeClient client({.kube = {.url = server.url()}, .stop = stop.get_token()});
  const auto timeout = std::chrono::minutes(2);
  auto result = std::async(std::launch::async, [&] {
    return client.watch("/api/v1/pods", "", "", timeout, [](std::string_view) { return true; });
  });
  ASSERT_TRUE(eventually([&] { return server.open_watches() == 1; }));
  stop.request_stop();
  // Bounded by half of what the watch would otherwise run, so a loaded machine cannot fail the
  // test and a missing wake-up can.
  ASSERT_EQ(result.wait_for(timeout / 2), std::future_status::ready);
  EXPECT_EQ(result.get().transport_error, "stopped");
  EXPECT_TRUE(client.stopped());
}

}  // namespace
}  // namespace netscore::collector
