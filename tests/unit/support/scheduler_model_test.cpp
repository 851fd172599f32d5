// The kube-scheduler model against kube-scheduler v1.26's own arithmetic: the expected figures are
// worked by hand from the plugins' formulas (noderesources/least_allocated.go,
// balanced_allocation.go, podtopologyspread/scoring.go, schedule_one.go), not by the model.
#include "tests/support/scheduler_model.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace netscore::sim {
namespace {

struct ResourceCase {
  unsigned pods_on_node;
  std::int64_t least_allocated;
  std::int64_t balanced_allocation;
};

TEST(SchedulerModel, ResourceScoresFollowGoArithmetic) {
  // One more 100m / 256Mi pod on a 4-CPU / 16Gi node. LeastAllocated: the mean of
  // (capacity - requested) x 100 / capacity over CPU and memory, integers. BalancedAllocation:
  // (1 - |cpu fraction - memory fraction| / 2) x 100 truncated, fractions capped at 1.
  const std::vector<ResourceCase> cases{
      {0, 97, 99},   // CPU 3900*100/4000 = 97, memory 16128*100/16384 = 98; 0.025 vs 0.015625
      {9, 79, 95},   // CPU 75, memory 84; 0.25 vs 0.15625
      {39, 18, 81},  // CPU 0, memory 6144*100/16384 = 37; 1.0 vs 0.625
      {59, 3, 96},   // CPU over capacity: 0, memory 1024*100/16384 = 6; 1 (capped) vs 0.9375
  };
  for (const ResourceCase& c : cases) {
    EXPECT_EQ(SchedulerModel::least_allocated(c.pods_on_node), c.least_allocated)
        << c.pods_on_node << " pods";
    EXPECT_EQ(SchedulerModel::balanced_allocation(c.pods_on_node), c.balanced_allocation)
        << c.pods_on_node << " pods";
  }
}

TEST(SchedulerModel, ScoresAllNodesBelowAHundredThenAnAdaptiveShare) {
  const std::vector<std::array<std::size_t, 2>> cases{{30, 30},    {99, 99},    {100, 100},
                                                      {150, 100},  {1000, 420}, {5000, 500},
                                                      {6000, 300}, {10000, 500}};
  for (const auto& [nodes, scored] : cases)
    EXPECT_EQ(SchedulerModel::nodes_to_score(nodes), scored) << nodes << " nodes";
}

TEST(SchedulerModel, TopologySpreadPrefersNodesWithFewerSiblings) {
  const SchedulerModel with(true, 1), without(false, 1);
  const std::vector<unsigned> pods{0, 0, 0};
  const std::vector<unsigned> siblings{0, 1, 2};
  // Raw: round(count x ln(3 + 2) + 2) = 2, 4, 5; normalised 100 x (5 + 2 - raw) / 5 = 100, 60,
  // 40; weight 2. Resources: 97 + 99 on every node.
  std::vector<std::int64_t> total(3, 0);
  with.add_default_plugins(pods, siblings, total);
  EXPECT_EQ(total, (std::vector<std::int64_t>{396, 316, 276}));
  std::vector<std::int64_t> alone(3, 0);
  without.add_default_plugins(pods, siblings, alone);
  EXPECT_EQ(alone, (std::vector<std::int64_t>{196, 196, 196}));
  // A pod the default constraints do not select: every node alike.
  std::vector<std::int64_t> bare(3, 0);
  with.add_default_plugins(pods, std::vector<unsigned>{0, 0, 0}, bare);
  EXPECT_EQ(bare, (std::vector<std::int64_t>{396, 396, 396}));
}

TEST(SchedulerModel, TheExtenderAddsScoreTimesWeightTimesTen) {
  std::vector<std::int64_t> total{5, 5};
  SchedulerModel::add_extender(std::vector<std::int64_t>{10, 3}, 3, total);
  EXPECT_EQ(total, (std::vector<std::int64_t>{305, 95}));
}

TEST(SchedulerModel, TiesAreBrokenUniformlyAtRandom) {
  SchedulerModel model(false, 42);
  const std::vector<std::int64_t> total{7, 9, 9, 3, 9, 9};
  std::array<unsigned, 6> chosen{};
  constexpr unsigned kDraws = 4000;
  for (unsigned i = 0; i < kDraws; ++i) ++chosen.at(model.select_host(total));
  EXPECT_EQ(chosen[0] + chosen[3], 0U) << "never a node below the best";
  for (const std::size_t best : {1, 2, 4, 5}) {
    EXPECT_GT(chosen[best], kDraws / 4 - kDraws / 20) << best;
    EXPECT_LT(chosen[best], kDraws / 4 + kDraws / 20) << best;
  }
}

}  // namespace
}  // namespace netscore::sim
