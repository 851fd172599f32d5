// The collector's Kubernetes watcher against the fake API server: every list/watch convention
// and failure the watcher must survive.
#include "collector/kube/cluster_watcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "tests/support/curl_environment.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_kube_apiserver.h"

namespace netscore::collector {
namespace {

using testing::eventually;
using testing::FakeKubeApiServer;
namespace kube = testing::kube;
namespace fs = std::filesystem;

kube::Pod bound_pod(const std::string& name, const std::string& node) {
  return kube::Pod{.ns = "shop", .name = name, .node = node, .phase = "Running"};
}

ClusterWatcher::Options fast_options(const std::string& url) {
  return {.kube = {.url = url},
          .watch_timeout_min = std::chrono::seconds(30),
          .watch_timeout_max = std::chrono::seconds(30),
          .watch_grace = std::chrono::seconds(2),
          .backoff_initial = std::chrono::milliseconds(20),
          .backoff_max = std::chrono::milliseconds(100),
          .page_limit = 500};
}

// A projected service-account volume: `token` -> ..data/token, ..data -> a timestamped directory,
// swapped by renaming a new symlink over ..data, as the kubelet's AtomicWriter does.
class ProjectedToken {
 public:
  explicit ProjectedToken(const std::string& token)
      : dir_(fs::temp_directory_path() / ("netscore-token-" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write(token);
    fs::create_symlink("..data/token", dir_ / "token");
  }
  ~ProjectedToken() { fs::remove_all(dir_); }
  void write(const std::string& token) {
    const std::string version = "..v" + std::to_string(++generation_);
    fs::create_directories(dir_ / version);
    std::ofstream(dir_ / version / "token") << token;
    fs::create_symlink(version, dir_ / "..data_tmp");
    fs::rename(dir_ / "..data_tmp", dir_ / "..data");
  }
  std::string path() const { return (dir_ / "token").string(); }

 private:
  fs::path dir_;
  int generation_ = 0;
};

bool synced(const ClusterWatcher& w) {
  return w.status().state == shm::WatchState::synced;
}

std::uint32_t pods_on(ClusterState& state, const std::string& node) {
  for (const auto& load : state.loads({.now_ms = 0, .lag_ms = 0, .window_ms = 1})) {
    if (load.name == node) return load.pods;
  }
  return 0;
}

TEST(ClusterWatcher, PaginatedListOfANodeWithThousandsOfPodsThenWatch) {
  FakeKubeApiServer server;
  server.put_node("n1", {{"kubernetes.io/role", "edge"}});
  server.put_node("n2");
  for (int i = 0; i < 1200; ++i) server.create_pod(bound_pod("p" + std::to_string(i), "n1"));
  server.create_pod(kube::Pod{.ns = "shop", .name = "pending"});
  ClusterState state;
  auto options = fast_options(server.url());
  options.rules = parse_label_rules("type=space:kubernetes.io/role=edge");
  ClusterWatcher watcher(options, state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher); }));
  EXPECT_EQ(state.pod_count(), 1200U);
  EXPECT_EQ(pods_on(state, "n1"), 1200U);
  const auto loads = state.loads({.now_ms = 0, .lag_ms = 0, .window_ms = 1});
  ASSERT_EQ(loads.size(), 2U);
  EXPECT_EQ(loads[0].rule_mask, 1U);
  EXPECT_EQ(loads[1].rule_mask, 0U);
  std::size_t continued = 0;
  for (const auto& t : server.request_targets())
    continued += t.find("continue=") != std::string::npos;
  EXPECT_EQ(continued, 2U) << "1200 pods in pages of 500";
  // A binding arrives through the watch.
  EXPECT_EQ(server.bind_pod("shop", "pending", "n2"), 201U);
  EXPECT_TRUE(eventually([&] { return pods_on(state, "n2") == 1; }));
  EXPECT_TRUE(server.delete_pod("shop", "p0"));
  EXPECT_TRUE(eventually([&] { return pods_on(state, "n1") == 1199; }));
  EXPECT_EQ(watcher.status().relists_total, 2U) << "one list per resource";
}

TEST(ClusterWatcher, TerminalPodsAndDeletedNodesLeaveTheState) {
  FakeKubeApiServer server;
  server.put_node("n1");
  server.create_pod(bound_pod("a", "n1"));
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher) && state.pod_count() == 1; }));
  server.set_pod_phase("shop", "a", "Succeeded");
  EXPECT_TRUE(eventually([&] { return state.pod_count() == 0; }));
  server.delete_node("n1");
  EXPECT_TRUE(eventually([&] { return state.node_count() == 0; }));
}

TEST(ClusterWatcher, ResumesAfterACleanEndWithoutRelisting) {
  FakeKubeApiServer server;
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher) && server.open_watches() == 2; }));
  // Each stream delivers an event first: a watch closed within a second with none is treated as
  // a failure (client-go's guard against a hot reconnect loop).
  server.put_node("n1");
  server.create_pod(bound_pod("before-close", "n1"));
  ASSERT_TRUE(eventually([&] { return state.pod_count() == 1 && state.node_count() == 1; }));
  server.close_watches();
  server.create_pod(bound_pod("after-close", "n1"));
  EXPECT_TRUE(eventually([&] { return state.pod_count() == 2; }));
  EXPECT_EQ(watcher.status().relists_total, 2U);
  EXPECT_EQ(watcher.status().state, shm::WatchState::synced);
}

TEST(ClusterWatcher, BookmarksAdvanceTheResourceVersion) {
  FakeKubeApiServer server;
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher) && server.open_watches() == 2; }));
  server.put_node("unrelated");  // a node event: the pods watch only learns its RV by bookmark
  const std::string rv = std::to_string(server.resource_version());
  ASSERT_TRUE(eventually([&] { return state.node_count() == 1; }));
  EXPECT_NE(watcher.status().resource_version, rv);
  server.bookmark_now();
  EXPECT_TRUE(eventually([&] { return watcher.status().resource_version == rv; }));
}

// Pods deleted while the watcher was away must vanish: the relist after 410 replaces the state.
void expect_relist_after_gone(bool http_410) {
  FakeKubeApiServer server({.expired_watch_as_http_410 = http_410});
  server.create_pod(bound_pod("stays", "n1"));
  server.create_pod(bound_pod("goes", "n1"));
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  ASSERT_TRUE(eventually(
      [&] { return synced(watcher) && server.open_watches() == 2 && state.pod_count() == 2; }));
  server.stall_watches();
  server.delete_pod("shop", "goes");
  server.compact();
  server.cut_watches();
  EXPECT_TRUE(
      eventually([&] { return state.pod_count() == 1 && watcher.status().relists_total >= 3; }));
  EXPECT_TRUE(eventually([&] { return synced(watcher); }));
}

TEST(ClusterWatcher, GoneAsAnErrorEventRelistsAndDropsStalePods) {
  expect_relist_after_gone(false);
}
TEST(ClusterWatcher, GoneAsHttp410RelistsAndDropsStalePods) {
  expect_relist_after_gone(true);
}

TEST(ClusterWatcher, StalledWatchIsAbandonedAfterItsTimeout) {
  FakeKubeApiServer server;
  ClusterState state;
  auto options = fast_options(server.url());
  options.watch_timeout_min = options.watch_timeout_max = std::chrono::seconds(1);
  options.watch_grace = std::chrono::milliseconds(500);
  ClusterWatcher watcher(options, state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher) && server.open_watches() == 2; }));
  server.stall_watches();
  server.create_pod(bound_pod("held", "n1"));
  EXPECT_TRUE(eventually([&] { return state.pod_count() == 1; }));
}

TEST(ClusterWatcher, UnauthorizedAndForbiddenAreVisibleAndATokenRotationRecovers) {
  FakeKubeApiServer server;
  server.create_pod(bound_pod("a", "n1"));
  ProjectedToken token("expired");
  server.set_tokens({"fresh"}, {"denied"});
  ClusterState state;
  auto options = fast_options(server.url());
  options.kube.token_file = token.path();
  ClusterWatcher watcher(options, state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return watcher.status().state == shm::WatchState::failing; }));
  EXPECT_NE(watcher.status().error.find("401"), std::string::npos) << watcher.status().error;
  token.write("denied");
  // One snapshot of the error: the other resource's request may still carry the old token and
  // put its 401 back in between two reads.
  EXPECT_TRUE(eventually([&] {
    const std::string error = watcher.status().error;
    return error.find("403") != std::string::npos && error.find("forbidden") != std::string::npos;
  })) << watcher.status().error;
  token.write("fresh");
  EXPECT_TRUE(eventually([&] { return synced(watcher) && state.pod_count() == 1; }));
  EXPECT_TRUE(watcher.status().error.empty());
  EXPECT_EQ(server.authorizations().back(), "Bearer fresh");
}

TEST(ClusterWatcher, MalformedEventsAreCountedAndSkipped) {
  FakeKubeApiServer server;
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher) && server.open_watches() == 2; }));
  server.inject_watch_line(kube::Resource::pods, "{not json");
  server.inject_watch_line(kube::Resource::pods, R"({"type":"ADDED","object":{"metadata":{}}})");
  server.create_pod(bound_pod("fine", "n1"));
  EXPECT_TRUE(eventually([&] { return state.pod_count() == 1; }));
  EXPECT_EQ(watcher.status().malformed_total, 2U);
  EXPECT_EQ(watcher.status().state, shm::WatchState::synced);
}

TEST(ClusterWatcher, ServerErrorsBackOffAndRecover) {
  FakeKubeApiServer server;
  server.create_pod(bound_pod("a", "n1"));
  server.fail_next_requests(500, 3);
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  EXPECT_TRUE(eventually([&] { return synced(watcher) && state.pod_count() == 1; }));
  EXPECT_GE(watcher.status().errors_total, 1U);
}

TEST(ClusterWatcher, CutStreamRecoversEverything) {
  FakeKubeApiServer server;
  server.split_event_writes(true);
  ClusterState state;
  ClusterWatcher watcher(fast_options(server.url()), state);
  watcher.start();
  ASSERT_TRUE(eventually([&] { return synced(watcher) && server.open_watches() == 2; }));
  server.create_pod(bound_pod("a", "n1"));
  ASSERT_TRUE(eventually([&] { return state.pod_count() == 1; }));
  server.cut_watches();
  server.create_pod(bound_pod("b", "n1"));
  EXPECT_TRUE(eventually([&] { return state.pod_count() == 2 && synced(watcher); }));
}

}  // namespace
}  // namespace netscore::collector
