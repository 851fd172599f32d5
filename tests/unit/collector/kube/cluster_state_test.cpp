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

}  // namespace
}  // namespace netscore::collector
