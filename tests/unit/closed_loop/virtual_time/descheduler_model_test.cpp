#include "bench/closed_loop/virtual_time/descheduler_model.h"

#include <gtest/gtest.h>

#include <vector>

namespace netscore::sim {
namespace {

// Points 70, 30, 20, 20: mean 35, over above 45 (node 0), under at 30 or below (nodes 1-3).
const std::vector<double> kOneHot{0.705, 0.30, 0.209, 0.20};

TEST(DeschedulerModel, TheOverNodeGivesUpItsFirstEvictablePod) {
  const std::vector<EvictablePod> pods{
      {.pod = 9, .node = 0}, {.pod = 4, .node = 0}, {.pod = 1, .node = 1}, {.pod = 2, .node = 2}};
  EXPECT_EQ(descheduler_cycle(kOneHot, pods, {}), std::vector<std::uint32_t>{4});
}

// With a metric from Prometheus the descheduler cannot tell what a pod frees, so it evicts up to
// evictionLimits.node pods whatever the first did, in the informer's order.
TEST(DeschedulerModel, UpToTheNodeLimitInTheInformersOrder) {
  const std::vector<EvictablePod> pods{
      {.pod = 9, .node = 0}, {.pod = 4, .node = 0}, {.pod = 7, .node = 0}, {.pod = 1, .node = 1}};
  EXPECT_EQ(descheduler_cycle(kOneHot, pods, {.max_per_node = 2}),
            (std::vector<std::uint32_t>{4, 7}));
  EXPECT_EQ(descheduler_cycle(kOneHot, pods, {.max_per_node = 2, .max_per_cycle = 1}),
            std::vector<std::uint32_t>{4});
}

TEST(DeschedulerModel, NothingWithoutAnEvictablePodOnTheOverNode) {
  EXPECT_TRUE(descheduler_cycle(kOneHot, {{.pod = 1, .node = 1}}, {}).empty());
}

TEST(DeschedulerModel, NothingWithoutAnUnderUtilisedNode) {
  // Thresholds 5: points 60, 40, 40, 40: mean 45, node 0 over 55, three at or under 40. Points 60,
  // 44, 44, 44: mean 48, node 0 over 58, none at or under 43; with thresholds 0 the three at or
  // under 48.
  const std::vector<EvictablePod> pods{{.pod = 0, .node = 0}};
  EXPECT_EQ(descheduler_cycle({0.60, 0.40, 0.40, 0.40}, pods, {.low_points = 5}).size(), 1u);
  EXPECT_TRUE(descheduler_cycle({0.60, 0.44, 0.44, 0.44}, pods, {.low_points = 5}).empty());
  EXPECT_EQ(descheduler_cycle({0.60, 0.44, 0.44, 0.44}, pods, {.low_points = 0}).size(), 1u);
}

TEST(DeschedulerModel, TheHottestNodesFirstUpToTheCycleLimit) {
  // Seven nodes at 90-96 points, thirteen idle: mean 31.5, over above 41.5; five evictions, from
  // the five hottest.
  std::vector<double> utilisation(20, 0.0);
  std::vector<EvictablePod> pods;
  for (std::uint32_t n = 0; n < 7; ++n) {
    utilisation[n] = 0.90 + 0.01 * n;
    pods.push_back({.pod = n, .node = n});
  }
  EXPECT_EQ(descheduler_cycle(utilisation, pods, {}), (std::vector<std::uint32_t>{6, 5, 4, 3, 2}));
  EXPECT_EQ(descheduler_cycle(utilisation, pods, {.max_per_cycle = 2}),
            (std::vector<std::uint32_t>{6, 5}));
}

}  // namespace
}  // namespace netscore::sim
