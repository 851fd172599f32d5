#include "bench/closed_loop/placement/placement.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/workload/workload.h"

namespace netscore::sim {
namespace {

// Three nodes without link speeds, background 300 / 100 / 200 bytes/s, and four pods without an
// owner (no topology spread) of 1000, 10, 10, 10 bytes/s.
Trace three_nodes() {
  Trace trace;
  trace.node_names = {"node-0", "node-1", "node-2"};
  trace.background = {300, 100, 200};
  trace.background_transmit = {0, 0, 0};
  trace.speed = {0, 0, 0};
  for (std::uint32_t i = 0; i < 4; ++i) {
    PodSpec pod;
    pod.id = i;
    pod.owner_kind = OwnerKind::none;
    pod.name = "pod-" + std::to_string(i);
    pod.replicaset = "bare";
    pod.rate = i == 0 ? 1000.0 : 10.0;
    trace.pods.push_back(pod);
  }
  return trace;
}

std::optional<std::vector<std::int64_t>> no_extender(std::uint32_t) {
  ADD_FAILURE() << "only netscore policies ask the extender";
  return std::nullopt;
}

TEST(PlacementTest, InitialPodsWaterFillOnTrueTraffic) {
  const Trace trace = three_nodes();
  const Policy policy{.name = "any", .kind = PolicyKind::scheduler};
  const LoopParams params;
  Placement placement(trace, policy, params);
  EXPECT_EQ(placement.initial_node(0), 1U);  // the quietest background
  placement.bind(0, 1);                      // node-1 now carries 1100
  EXPECT_EQ(placement.initial_node(1), 2U);
}

TEST(PlacementTest, TheOracleCountsBoundPodsAtOnceAndForgetsRemovedOnes) {
  const Trace trace = three_nodes();
  const Policy policy{.name = "oracle", .kind = PolicyKind::oracle};
  const LoopParams params;
  Placement placement(trace, policy, params);
  EXPECT_EQ(placement.pick(0, no_extender), 1U);
  placement.bind(0, 1);
  EXPECT_EQ(placement.pick(1, no_extender), 2U);  // 300, 1100, 200
  placement.remove(0);
  EXPECT_EQ(placement.pick(1, no_extender), 1U);  // back to 300, 100, 200
  EXPECT_EQ(placement.node_of_pod()[0], 1) << "a removed pod keeps its node for the reports";
}

// Workload A's pods (1000 bytes/s) are created at 0 and 100 s, workload B's three (10 each) at
// 0.5 s; the trace's mean pod is 2030 / 5 = 406. With A's first pod on node-1 (background 100), a
// pod created at 0.5 s, before A could be measured, sees node-1 at 100 + 406 = 506 against
// node-0's 600; one created at 100 s sees A's pod at its 1000.
TEST(PlacementTest, TheInformationFairOracleKnowsAWorkloadOnlyOnceItCouldBeMeasured) {
  Trace trace;
  trace.node_names = {"node-0", "node-1", "node-2"};
  trace.background = {600, 100, 900};
  trace.background_transmit = {0, 0, 0};
  trace.speed = {0, 0, 0};
  trace.deployments = {{.name = "a"}, {.name = "b"}};
  const auto add_pod = [&](std::uint32_t workload, double rate, double created_s) {
    PodSpec pod;
    pod.id = static_cast<std::uint32_t>(trace.pods.size());
    pod.deployment = workload;
    pod.name = trace.deployments[workload].name + "-" + std::to_string(pod.id);
    pod.replicaset = trace.deployments[workload].name + "-hash";
    pod.rate = rate;
    pod.created_s = created_s;
    trace.pods.push_back(pod);
  };
  add_pod(0, 1000, 0);
  add_pod(0, 1000, 100);
  for (int i = 0; i < 3; ++i) add_pod(1, 10, 0.5);
  const Policy policy{.name = "informed", .kind = PolicyKind::informed_oracle};
  const LoopParams params;
  Placement placement(trace, policy, params);
  placement.bind(0, 1);
  EXPECT_EQ(placement.pick(2, no_extender), 1U);
  EXPECT_EQ(placement.pick(1, no_extender), 0U);
  const Policy oracle{.name = "oracle", .kind = PolicyKind::oracle};
  Placement knowing(trace, oracle, params);
  knowing.bind(0, 1);
  EXPECT_EQ(knowing.pick(2, no_extender), 0U) << "the oracle knows pod 0 at once";
}

TEST(PlacementTest, FewestPodsCountsPodsNotTraffic) {
  const Trace trace = three_nodes();
  const Policy policy{.name = "fewest", .kind = PolicyKind::fewest_pods};
  const LoopParams params;
  Placement placement(trace, policy, params);
  placement.bind(0, 0);
  placement.bind(1, 1);
  EXPECT_EQ(placement.pick(2, no_extender), 2U);
  EXPECT_EQ(placement.node_pods(), (std::vector<unsigned>{1, 1, 0}));
  placement.remove(3);  // still pending: nothing to forget
  EXPECT_EQ(placement.node_pods(), (std::vector<unsigned>{1, 1, 0}));
}

TEST(PlacementTest, TheExtendersAnswerIsWeightedAgainstTheDefaultPlugins) {
  const Trace trace = three_nodes();
  const Policy policy{.name = "netscore defaults"};
  const LoopParams params;
  Placement placement(trace, policy, params);
  // Node 0 already runs a pod: the default plugins prefer 1 and 2 by a few points, which 10 x 3
  // x 10 for node 0 outweighs.
  placement.bind(0, 0);
  std::vector<std::uint32_t> asked;
  const auto favour_node_0 = [&](std::uint32_t pod) -> std::optional<std::vector<std::int64_t>> {
    asked.push_back(pod);
    return std::vector<std::int64_t>{10, 0, 0};
  };
  EXPECT_EQ(placement.pick(1, favour_node_0), 0U);
  EXPECT_EQ(asked, std::vector<std::uint32_t>{1});
  // A failed call leaves the default plugins alone: never the node that already runs a pod.
  const auto failing = [](std::uint32_t) -> std::optional<std::vector<std::int64_t>> {
    return std::nullopt;
  };
  EXPECT_NE(placement.pick(1, failing), 0U);
}

}  // namespace
}  // namespace netscore::sim
