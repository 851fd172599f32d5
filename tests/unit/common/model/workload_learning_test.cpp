// Workload learning alone: nodes and workloads by id, pods by the part of their traffic the window
// holds (hand-computed cases; what the watcher's state feeds it:
// collector/kube/cluster_state_test).
#include "common/model/workload_learning.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace netscore::model {
namespace {

constexpr std::uint32_t kNone = 0, kA = 1, kB = 2;  // workload ids; 0: pods without an owner

struct LearningCase {
  const char* name;
  // A first fit without pods: each node's rate is its background.
  std::vector<double> idle_rates;
  std::vector<double> rates;  // then, with `pods`, `fits` times
  std::vector<HeldPod> pods;
  std::vector<std::uint32_t> running;  // per workload id
  int fits;
  std::vector<std::optional<double>> expected;  // per workload id, within 1%
  std::optional<double> rate_per_pod;           // within 1%
};

HeldPod settled(std::uint32_t node, std::uint32_t workload) {
  return {.node = node, .workload = workload, .held = 1};
}

void expect_near(std::optional<double> actual, std::optional<double> expected, const char* name) {
  ASSERT_EQ(actual.has_value(), expected.has_value()) << name;
  if (expected) {
    EXPECT_NEAR(*actual, *expected, *expected / 100) << name;
  }
}

TEST(WorkloadLearner, FitsEachWorkloadsTrafficPerPodToTheNodeRates) {
  const std::vector<LearningCase> cases{
      // n1 runs 2 pods of A and 1 of B and receives 5000 bytes/s, n2 runs 1 of A and 2 of B and
      // receives 4000, no background: A = 2000, B = 1000.
      {"two workloads over two nodes",
       {0, 0},
       {5000, 4000},
       {settled(0, kA), settled(0, kA), settled(0, kB), settled(1, kA), settled(1, kB),
        settled(1, kB)},
       {0, 3, 3},
       50,
       {std::nullopt, 2000, 1000},
       1500},
      // An annotated pod is a fixed 3000 of its node's 4000, not a term of its workload.
      {"an annotated pod is fixed",
       {0},
       {4000},
       {{.node = 0, .workload = kA, .held = 1, .annotated_rate = 3000}, settled(0, kB)},
       {0, 1, 1},
       20,
       {std::nullopt, std::nullopt, 1000},
       1000},
      // The start split gives half of 2000 to A's one pod; the fit moves it to all of it over a
      // background learned as 0.
      {"an unmeasured node says nothing of its pods",
       {0, -1},
       {2000, -1},
       {settled(0, kA), settled(1, kB)},
       {0, 1, 1},
       4,
       {std::nullopt, 2000, std::nullopt},
       2000},
      {"half a pod's worth is not enough",
       {0},
       {1000},
       {{.node = 0, .workload = kA, .held = 0.5}},
       {0, 1},
       10,
       {std::nullopt, std::nullopt},
       std::nullopt},
      {"pods without an owner are fitted as one workload",
       {0},
       {3000},
       {settled(0, kNone), settled(0, kNone)},
       {2},
       20,
       {1500},
       1500},
  };
  for (const auto& c : cases) {
    WorkloadLearner learner;
    EXPECT_EQ(learner.rate_per_pod(), std::nullopt) << c.name;
    learner.learn({.node_rate = c.idle_rates, .pods = {}, .running_pods = c.running});
    for (int i = 0; i < c.fits; ++i)
      learner.learn({.node_rate = c.rates, .pods = c.pods, .running_pods = c.running});
    for (std::uint32_t w = 0; w < c.expected.size(); ++w)
      expect_near(learner.workload_rate(w), c.expected[w], c.name);
    expect_near(learner.rate_per_pod(), c.rate_per_pod, c.name);
  }
}

TEST(WorkloadLearner, AForgottenWorkloadIsUnknownAndTheMeanStays) {
  WorkloadLearner learner;
  const std::vector<double> rates{2000};
  const std::vector<HeldPod> pods{settled(0, kA)};
  const std::vector<std::uint32_t> running{0, 1};
  learner.learn({.node_rate = std::vector<double>{0}, .pods = {}, .running_pods = running});
  for (int i = 0; i < 10; ++i)
    learner.learn({.node_rate = rates, .pods = pods, .running_pods = running});
  ASSERT_TRUE(learner.workload_rate(kA).has_value());
  learner.forget_workload(kA);
  EXPECT_EQ(learner.workload_rate(kA), std::nullopt);
  EXPECT_NEAR(learner.rate_per_pod().value_or(0), 2000, 20);
  EXPECT_EQ(learner.workload_rate(7), std::nullopt) << "an id never seen";
}

}  // namespace
}  // namespace netscore::model
