#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "tests/support/herd_model.h"

// The herd test's yardsticks, checked against values worked out by hand.
namespace netscore::testing::herd {
namespace {

TEST(HerdModel, WaterFillingGivesEachPodToTheLeastLoadedNodeTiesByName) {
  // Loads 2,1,3: node 1 (1) -> 2,2,3; tie, node 0 -> 3,2,3; node 1 -> 3,3,3; tie, node 0.
  EXPECT_EQ(water_filling(std::vector<unsigned>{2, 1, 3}, 4), (std::vector<unsigned>{2, 2, 0}));
  EXPECT_EQ(water_filling(std::vector<unsigned>{}, 4), std::vector<unsigned>{});
}

TEST(HerdModel, TwentyNodesFillTheQuietestFifteen) {
  const Cluster c = twenty_nodes();
  ASSERT_EQ(c.names.size(), 20U);
  EXPECT_EQ(c.names[8], "node-08");
  EXPECT_EQ(std::accumulate(c.initial_pods.begin(), c.initial_pods.end(), 0U), 107U);
  // 157 pods in all: the two nodes at 9 get none, the other 18 end at 7 or 8 (13 x 8 + 5 x 7 =
  // 139): ties go by name, so node-00..node-12 reach 8 (node-07 and node-16 start there) and
  // node-14, -15, -17, -18, -19 stay at 7.
  EXPECT_EQ(water_filling(c.initial_pods, 50),
            (std::vector<unsigned>{5, 1, 3, 0, 6, 2, 4, 0, 7, 3, 1, 5, 2, 0, 3, 5, 0, 1, 2, 0}));
}

TEST(HerdModel, PodsAwayIsHalfTheL1Distance) {
  EXPECT_EQ(pods_away(std::vector<unsigned>{2, 2, 0}, std::vector<unsigned>{0, 2, 2}), 2U);
  EXPECT_EQ(pods_away(std::vector<unsigned>{1, 1}, std::vector<unsigned>{1, 1}), 0U);
  EXPECT_EQ(nodes_used(std::vector<unsigned>{0, 3, 0, 1}), 2U);
}

}  // namespace
}  // namespace netscore::testing::herd
