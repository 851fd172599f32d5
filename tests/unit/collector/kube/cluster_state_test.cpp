// The collector's placement ledger behind its lock: watcher threads write while the publisher
// reads (the ledger's arithmetic: common/model/placement_ledger_test).
#include "collector/kube/cluster_state.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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
