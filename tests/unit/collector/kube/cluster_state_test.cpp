// The collector's placement ledger behind its lock: watcher threads write while the publisher
// reads (the ledger's arithmetic: common/model/placement_ledger_test).
#include "collector/kube/cluster_state.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/model/inputs.h"

namespace netscore::collector {
namespace {

TEST(ClusterState, WritersAndAReaderShareTheLedger) {
  constexpr int kPodsPerWriter = 200;
  ClusterState state;
  state.upsert_node({.name = "n1"});
  const auto write = [&](const std::string& prefix) {
    for (int i = 0; i < kPodsPerWriter; ++i)
      state.upsert_pod({.uid = prefix + std::to_string(i), .node = "n1"}, 1000);
  };
  {
    std::jthread first(write, "a");
    std::jthread second(write, "b");
    for (int i = 0; i < kPodsPerWriter; ++i)
      EXPECT_LE(state.loads({.now_ms = 1000, .lag_ms = 15000, .window_ms = 300000}).size(), 1U);
  }
  EXPECT_EQ(state.pod_count(), 2U * kPodsPerWriter);
  const auto loads = state.loads({.now_ms = 1000, .lag_ms = 15000, .window_ms = 300000});
  ASSERT_EQ(loads.size(), 1U);
  EXPECT_EQ(loads[0].pods, 2U * kPodsPerWriter);
  EXPECT_TRUE(loads[0].in_cluster);
}

// Workload learning fits outside the lock while watchers write. Pod h, on the measured node n1,
// moves to a new workload, which frees the old one's id (learned at n1's traffic), and pod x, on
// n2, which is never measured, moves to a new workload that takes that id at once: nothing can be
// learned of x's workloads. A fit under way at the move must not hand the freed id's rate to x's,
// from its end until the next fit's (while h's new workload is not yet learned).
TEST(ClusterState, AFitThatOverlapsWritersNeverPricesAWorkloadAtAnotherOnesRate) {
  constexpr int kMoves = 300;
  constexpr std::int64_t kNowMs = 10'000'000;
  constexpr std::int64_t kSettledMs = 1'000'000;  // placed long before: its traffic held whole
  const model::LoadWindow window{.now_ms = kNowMs, .lag_ms = 15000, .window_ms = 300000};
  ClusterState state;
  state.upsert_node({.name = "n1"});
  state.upsert_node({.name = "n2"});
  for (int i = 0; i < 200; ++i)  // enough terms that a fit takes a while
    state.upsert_pod({.uid = "f" + std::to_string(i), .node = "n1", .workload = "ns/Deployment/f"},
                     kSettledMs);
  const std::vector<model::NodeRate> measured{{.node = "n1", .rate = 1e6}};
  const auto learned = [&](const std::string& workload) {
    return state.workload_rate(workload).has_value();
  };
  std::atomic<bool> moving = true;
  int priced_wrongly = 0, moves = 0;
  {
    std::jthread fits([&] {
      while (moving) state.learn(measured, window);
    });
    for (; moves < kMoves; ++moves) {
      const std::string h = "ns/Deployment/h-" + std::to_string(moves);
      const std::string x = "ns/Deployment/x-" + std::to_string(moves);
      state.upsert_pod({.uid = "h", .node = "n1", .workload = h}, kSettledMs);
      state.upsert_pod({.uid = "x", .node = "n2", .workload = x}, kSettledMs);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!learned(h) && std::chrono::steady_clock::now() < give_up) {
        if (learned(x)) ++priced_wrongly;
      }
      if (!learned(h)) break;
    }
    moving = false;
  }
  EXPECT_EQ(moves, kMoves) << "a fit did not learn h's workload within 30 s";
  EXPECT_EQ(priced_wrongly, 0);
  EXPECT_TRUE(learned("ns/Deployment/f"));
}

// The traffic per pod is joined by namespace/name; a pod on its node's network is never one.
TEST(ClusterState, PodsAreFoundByNameOffTheHostNetworkWhileBound) {
  ClusterState state;
  state.upsert_pod({.uid = "a", .node = "n1", .name = "shop/web-1"}, 0);
  state.upsert_pod({.uid = "h", .node = "n2", .name = "kube-system/exporter", .host_network = true},
                   0);
  state.upsert_pod({.uid = "b", .node = "n2", .name = "shop/web-2"}, 0);
  const std::vector<std::string> names{"shop/web-1", "kube-system/exporter", "shop/web-2",
                                       "shop/unknown"};
  EXPECT_EQ(state.nodes_of_pods(names), (std::vector<std::string>{"n1", "", "n2", ""}));
  state.remove_pod("b", 1);
  state.upsert_pod({.uid = "a", .node = "n3", .name = "shop/web-1"}, 2);
  EXPECT_EQ(state.nodes_of_pods(names), (std::vector<std::string>{"n3", "", "", ""}));
  state.replace_pods({}, 3);
  EXPECT_EQ(state.nodes_of_pods(names), (std::vector<std::string>{"", "", "", ""}));
}

}  // namespace
}  // namespace netscore::collector
