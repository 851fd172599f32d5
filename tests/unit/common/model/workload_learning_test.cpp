// Workload learning alone: nodes and workloads by id, pods by the part of their traffic the window
// holds (hand-computed cases; what the watcher's state feeds it:
// collector/kube/cluster_state_test).
#include "common/model/workload_learning.h"

#include "common/model/inputs.h"

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
  // What a pod of an unknown workload is priced at, within 1%: the mean over the known workloads'
  // running pods and the annotated pods plus two deviations between them.
  std::optional<double> rate_per_pod;
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
      // receives 4000, no background: A = 2000, B = 1000. Three running pods each: a mean of
      // 1500 and a deviation of 500, so 2500.
      {"two workloads over two nodes",
       {0, 0},
       {5000, 4000},
       {settled(0, kA), settled(0, kA), settled(0, kB), settled(1, kA), settled(1, kB),
        settled(1, kB)},
       {0, 3, 3},
       50,
       {std::nullopt, 2000, 1000},
       2500},
      // A declaration starts its workload's fit and the nodes finish it: n1 runs a (A, declared
      // at 3000) and b1 (B), n2 b2 and b3, no background; a + b = 3000 and 2b = 2000, so A = 2000
      // and B = 1000. The unknown pod's price counts a at its declared 3000 (what prices it) and
      // B's three pods at 1000: a mean of 1500 and a deviation of 866.03, so 3232.05.
      {"a declaration starts its workload's fit",
       {0, 0},
       {3000, 2000},
       {{.node = 0, .workload = kA, .held = 1, .annotated_rate = 3000},
        settled(0, kB),
        settled(1, kB),
        settled(1, kB)},
       {0, 1, 3},
       50,
       {std::nullopt, 2000, 1000},
       3232.05},
      // Every pod declared, and the declarations explain the node: their 1000 and 3000 are their
      // workloads' fits and price an unknown pod at a mean of 2000 plus two deviations of 1000.
      {"declared traffic alone prices an unknown pod",
       {0},
       {4000},
       {{.node = 0, .workload = kA, .held = 1, .annotated_rate = 1000},
        {.node = 0, .workload = kB, .held = 1, .annotated_rate = 3000}},
       {0, 1, 1},
       1,
       {std::nullopt, 1000, 3000},
       4000},
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
      {"a quarter of a pod's worth is not enough",
       {0},
       {1000},
       {{.node = 0, .workload = kA, .held = 0.25}},
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
    learner.learn({.node_rate = c.idle_rates,
                   .node_transmit_rate = {},
                   .pods = {},
                   .running_pods = c.running});
    for (int i = 0; i < c.fits; ++i)
      learner.learn({.node_rate = c.rates,
                     .node_transmit_rate = {},
                     .pods = c.pods,
                     .running_pods = c.running});
    for (std::uint32_t w = 0; w < c.expected.size(); ++w)
      expect_near(learner.workload_rate(w), c.expected[w], c.name);
    expect_near(learner.rate_per_pod(), c.rate_per_pod, c.name);
  }
}

// Rates per node in both directions: first idle (each node's rate is its background), then with
// `pods`, 50 times.
struct TwoWayCase {
  std::vector<double> idle_rx, idle_tx, rx, tx;
  std::vector<HeldPod> pods;
  std::vector<std::uint32_t> running;
};

WorkloadLearner fit_both_ways(const TwoWayCase& c) {
  WorkloadLearner learner;
  learner.learn({.node_rate = c.idle_rx,
                 .node_transmit_rate = c.idle_tx,
                 .pods = {},
                 .running_pods = c.running});
  for (int i = 0; i < 50; ++i) {
    learner.learn(
        {.node_rate = c.rx, .node_transmit_rate = c.tx, .pods = c.pods, .running_pods = c.running});
  }
  return learner;
}

// Each direction is fitted to its own rates with its own backgrounds and annotations. n1 runs x
// (A, annotated to transmit 1000) and b1 (B), n2 runs b2 and b3 (B), n3 none; n1 and n2 have no
// background, n3's is all it measures, a different one per direction.
// Receive: a + b = 4000 on n1, 2b = 2000 on n2: A = 3000, B = 1000; per running pod a mean of
// 6000 / 4 = 1500, a variance of (3000² + 3 x 1000²) / 4 - 1500² = 750,000, so an unknown pod
// 1500 + 2 x 866.03.
// Transmit: x + b = 1250 on n1 and 2b = 500 on n2, so b = 250 and x = 1000, where A's
// declaration started it.
TEST(WorkloadLearner, FitsTransmitApartFromReceive) {
  const WorkloadLearner learner = fit_both_ways(
      {.idle_rx = {0, 0, 5000},
       .idle_tx = {0, 0, 700},
       .rx = {4000, 2000, 5000},
       .tx = {1250, 500, 700},
       .pods = {{.node = 0, .workload = kA, .held = 1, .annotated_transmit_rate = 1000},
                settled(0, kB),
                settled(1, kB),
                settled(1, kB)},
       .running = {0, 1, 3}});
  const char* name = "transmit apart";
  expect_near(learner.workload_rate(kA), 3000, name);
  expect_near(learner.workload_rate(kB), 1000, name);
  expect_near(learner.rate_per_pod(), 3232.05, name);
  expect_near(learner.workload_transmit_rate(kA), 1000, name);
  expect_near(learner.workload_transmit_rate(kB), 250, name);
  // A's declared 1000 beside B's three pods at 250: a mean of 437.5 and a deviation of 324.76.
  expect_near(learner.transmit_rate_per_pod(), 1087.02, name);
}

// Two workloads over two nodes without background, the transmit-heavy one apart: n1 runs 2 of A
// and 1 of B, n2 1 of A and 2 of B. Receive 5000 and 4000: A = 2000, B = 1000. Transmit 4000 and
// 5000: 2a + b = 4000, a + 2b = 5000, so A transmits 1000 and B 2000; three running pods each: an
// unknown pod transmits a mean of 1500 plus two deviations of 500.
TEST(WorkloadLearner, TellsATransmitHeavyWorkloadFromAReceiveHeavyOne) {
  const WorkloadLearner learner =
      fit_both_ways({.idle_rx = {0, 0},
                     .idle_tx = {0, 0},
                     .rx = {5000, 4000},
                     .tx = {4000, 5000},
                     .pods = {settled(0, kA), settled(0, kA), settled(0, kB), settled(1, kA),
                              settled(1, kB), settled(1, kB)},
                     .running = {0, 3, 3}});
  const char* name = "transmit-heavy";
  expect_near(learner.workload_rate(kA), 2000, name);
  expect_near(learner.workload_rate(kB), 1000, name);
  expect_near(learner.workload_transmit_rate(kA), 1000, name);
  expect_near(learner.workload_transmit_rate(kB), 2000, name);
  expect_near(learner.transmit_rate_per_pod(), 2500, name);
}

// The herd test's cluster: nodes running 1 to 9 identical pods (one workload) and nothing else,
// measured for the first time together. A start splitting each node's rate in half would explain
// every node exactly at half the pods' traffic and never move; the line through (pods, rate) is
// the truth at once, also over a common background (2000 + 1000 x pods: 1000).
TEST(WorkloadLearner, AFirstMeasurementStartsFromTheLineThroughTheNodes) {
  const std::vector<std::uint32_t> counts{3, 7, 5, 9, 2, 6, 4, 8, 1, 5};
  for (const double background : {0.0, 2000.0}) {
    std::vector<double> rates;
    std::vector<HeldPod> pods;
    for (std::uint32_t n = 0; n < counts.size(); ++n) {
      rates.push_back(background + 1000.0 * counts[n]);
      for (std::uint32_t p = 0; p < counts[n]; ++p) pods.push_back(settled(n, kNone));
    }
    const std::vector<std::uint32_t> running{50};
    WorkloadLearner learner;
    learner.learn(
        {.node_rate = rates, .node_transmit_rate = {}, .pods = pods, .running_pods = running});
    const char* name = background > 0 ? "common background" : "no background";
    expect_near(learner.workload_rate(kNone), 1000, name);
    for (int i = 0; i < 20; ++i)
      learner.learn(
          {.node_rate = rates, .node_transmit_rate = {}, .pods = pods, .running_pods = running});
    expect_near(learner.workload_rate(kNone), 1000, name);
  }
}

// Rates the pod counts hardly explain (pods 1, 2, 3; rates 1000, 3000, 1200: R² under 1%) are
// backgrounds and workloads that differ, not a line (its slope: 100 per pod, over a background of
// 2000). The fit starts from the split, 0.5 x 5200 / 6 = 433 per pod, and stays far from the slope.
TEST(WorkloadLearner, RatesThePodsDoNotExplainStartFromTheSplit) {
  const std::vector<double> rates{1000, 3000, 1200};
  const std::vector<HeldPod> pods{settled(0, kA), settled(1, kA), settled(1, kA),
                                  settled(2, kA), settled(2, kA), settled(2, kA)};
  const std::vector<std::uint32_t> running{0, 6};
  WorkloadLearner learner;
  for (int i = 0; i < 20; ++i) {
    learner.learn(
        {.node_rate = rates, .node_transmit_rate = {}, .pods = pods, .running_pods = running});
  }
  ASSERT_TRUE(learner.workload_rate(kA).has_value());
  EXPECT_GT(*learner.workload_rate(kA), 2 * 100.0);
  EXPECT_LT(*learner.workload_rate(kA), 0.5 * 5200 / 6);
}

// Receive rates alone: `times` fits of one node measuring `rate` with `pods`.
void fit_receive(WorkloadLearner& learner, double rate, const std::vector<HeldPod>& pods,
                 const std::vector<std::uint32_t>& running, int times) {
  for (int i = 0; i < times; ++i) {
    learner.learn({.node_rate = std::vector<double>{rate},
                   .node_transmit_rate = {},
                   .pods = pods,
                   .running_pods = running});
  }
}

TEST(WorkloadLearner, NoTransmitRatesLeaveTransmitUnlearned) {
  WorkloadLearner learner;
  const std::vector<HeldPod> pods{settled(0, kA)};
  const std::vector<std::uint32_t> running{0, 1};
  fit_receive(learner, 0, {}, running, 1);
  fit_receive(learner, 2000, pods, running, 10);
  expect_near(learner.workload_rate(kA), 2000, "receive");
  EXPECT_EQ(learner.workload_transmit_rate(kA), std::nullopt);
  EXPECT_EQ(learner.transmit_rate_per_pod(), std::nullopt);
}

TEST(WorkloadLearner, AForgottenWorkloadIsUnknownAndTheMeanStays) {
  WorkloadLearner learner;
  const std::vector<double> rates{2000};
  const std::vector<HeldPod> pods{settled(0, kA)};
  const std::vector<std::uint32_t> running{0, 1};
  learner.learn({.node_rate = std::vector<double>{0},
                 .node_transmit_rate = std::vector<double>{0},
                 .pods = {},
                 .running_pods = running});
  for (int i = 0; i < 10; ++i) {
    learner.learn(
        {.node_rate = rates, .node_transmit_rate = rates, .pods = pods, .running_pods = running});
  }
  ASSERT_TRUE(learner.workload_rate(kA).has_value());
  ASSERT_TRUE(learner.workload_transmit_rate(kA).has_value());
  learner.forget_workload(kA);
  EXPECT_EQ(learner.workload_rate(kA), std::nullopt);
  EXPECT_EQ(learner.workload_transmit_rate(kA), std::nullopt);
  EXPECT_NEAR(learner.rate_per_pod().value_or(0), 2000, 20);
  EXPECT_EQ(learner.workload_rate(7), std::nullopt) << "an id never seen";
}

// An id forgotten and given to another workload: the measurements its former workload's pods were
// in keep them at their learned traffic, and the new workload is fitted to its own pod alone.
TEST(WorkloadLearner, AReusedIdLearnsItsNewWorkloadAlone) {
  WorkloadLearner learner;
  const std::vector<HeldPod> pods{settled(0, kA)};
  const std::vector<std::uint32_t> running{0, 1};
  fit_receive(learner, 0, {}, running, 1);
  fit_receive(learner, 2000, pods, running, 5);
  learner.forget_workload(kA);
  fit_receive(learner, 5000, pods, running, 3);
  expect_near(learner.workload_rate(kA), 5000, "the id's new workload");
}

// A node that measured nothing once reads a background of 0, which no multiplicative step moves;
// once it measures 1000 with no pod on it, its background starts again there. A's one pod then
// moves between it and a node of background 500, each measuring A's 2000 over its background:
// A = 2000, where a background left at 0 gives A 3000 on the first node and about 2500 in all.
TEST(WorkloadLearner, ABackgroundReadAtZeroStartsAgainWhileNoPodIsOnItsNode) {
  WorkloadLearner learner;
  const std::vector<std::uint32_t> running{0, 1};
  const auto measure = [&](std::vector<HeldPod> pods, std::vector<double> rates) {
    learner.learn(
        {.node_rate = rates, .node_transmit_rate = {}, .pods = pods, .running_pods = running});
  };
  measure({}, {0, 500});
  for (int i = 0; i < 10; ++i) measure({}, {1000, 500});
  for (int i = 0; i < 30; ++i) {
    measure({settled(0, kA)}, {3000, 500});
    measure({settled(1, kA)}, {1000, 2500});
  }
  expect_near(learner.workload_rate(kA), 2000, "a background that starts again");
}

// One pod of A moving between two nodes (backgrounds 500 and 2000, never measured idle): on n1 the
// nodes measure 1500 and 2000, on n2 500 and 3000; A = 1000. Once fitted, one measurement 600 too
// high on A's node moves A by a tenth of that at most: the fit weighs it with the measurements
// before it, not alone (which gives most of the 600 to A's one pod).
TEST(WorkloadLearner, OneNoisyMeasurementMovesAFittedWorkloadLittle) {
  WorkloadLearner learner;
  const std::vector<std::uint32_t> running{0, 1};
  const auto measure = [&](std::uint32_t node, std::vector<double> rates) {
    const std::vector<HeldPod> pods{settled(node, kA)};
    learner.learn(
        {.node_rate = rates, .node_transmit_rate = {}, .pods = pods, .running_pods = running});
  };
  for (int i = 0; i < 30; ++i) {
    measure(0, {1500, 2000});
    measure(1, {500, 3000});
  }
  expect_near(learner.workload_rate(kA), 1000, "fitted");
  measure(1, {500, 3600});
  ASSERT_TRUE(learner.workload_rate(kA).has_value());
  EXPECT_NEAR(*learner.workload_rate(kA), 1000, 60);
}

TEST(LearnsWorkloads, AutoFitsOnlyWhileNoPerPodSeriesAreRead) {
  const auto learns = [](bool enabled, WorkloadLearning mode, bool pod_traffic) {
    return learns_workloads({.enabled = enabled, .learn_workloads = mode}, pod_traffic);
  };
  EXPECT_TRUE(learns(true, WorkloadLearning::without_pod_traffic, false));
  EXPECT_FALSE(learns(true, WorkloadLearning::without_pod_traffic, true));
  EXPECT_TRUE(learns(true, WorkloadLearning::on, true));
  EXPECT_FALSE(learns(true, WorkloadLearning::off, false));
  EXPECT_FALSE(learns(false, WorkloadLearning::on, false)) << "no correction, nothing to price";
}

}  // namespace
}  // namespace netscore::model
