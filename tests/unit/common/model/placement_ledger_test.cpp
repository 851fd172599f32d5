// The placement ledger: relists, placements forgotten once settled, pods gone
// while the window still holds their traffic, and what it feeds workload learning and prices at
// the learned rates (hand-computed cases; the fit itself: common/model/workload_learning_test).
#include "common/model/placement_ledger.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/model/workload_learning.h"
#include "tests/unit/common/model/placement_ledger_fixtures.h"

namespace netscore::model {
namespace {

// Watched nodes and nodes holding pods, running or gone within the window, in name order, each
// once; a node left with neither is not listed.
TEST(PlacementLedger, LoadsListWatchedAndOccupiedNodesOnceInNameOrder) {
  PlacementLedger state;
  state.replace_nodes({{.name = "d", .rule_mask = 4}, {.name = "a", .rule_mask = 1}});
  state.upsert_node({.name = "c", .rule_mask = 3});
  state.upsert_pod(pod("on-b", "b"), kLongAgo);  // unwatched, running
  state.upsert_pod(pod("on-d", "d"), kLongAgo);  // watched, running
  state.upsert_pod(pod("gone-e", "e"), kLongAgo);
  state.remove_pod("gone-e", kNow - 1000);  // the window still holds its traffic
  state.upsert_pod(pod("gone-x", "x"), kLongAgo);
  state.remove_pod("gone-x", kLongAgo + 1);  // long gone: x has nothing left
  const auto loads = state.loads(at(kNow));
  std::vector<std::string> names;
  for (const auto& l : loads) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_TRUE(load_of(loads, "a").in_cluster);
  EXPECT_EQ(load_of(loads, "a").rule_mask, 1U);
  EXPECT_EQ(load_of(loads, "a").pods, 0U);
  EXPECT_FALSE(load_of(loads, "b").in_cluster);
  EXPECT_EQ(load_of(loads, "b").pods, 1U);
  EXPECT_EQ(load_of(loads, "c").rule_mask, 3U);
  EXPECT_TRUE(load_of(loads, "d").in_cluster);
  EXPECT_EQ(load_of(loads, "d").rule_mask, 4U);
  EXPECT_EQ(load_of(loads, "d").pods, 1U);
  EXPECT_FALSE(load_of(loads, "e").in_cluster);
  EXPECT_EQ(load_of(loads, "e").departed, 1U);

  state.remove_node("a");
  EXPECT_EQ(state.loads(at(kNow)).front().name, "b") << "an unwatched node without pods goes";
}

TEST(PlacementLedger, RelistKeepsPlacementTimesAndDropsVanishedPods) {
  PlacementLedger state;
  state.upsert_pod({.uid = "a", .node = "n1"}, 1000000);
  state.replace_pods({{.uid = "a", .node = "n1", .scheduled_ms = 1},
                      {.uid = "b", .node = "n1", .scheduled_ms = 2000000}},
                     2000000);
  // At 1015000 with lag 15000 and window 300000: "a" (placed at 1000000 by the watch) is wholly
  // pending; "b" is placed in the future of that clock and counts as pending too.
  const auto loads = state.loads({.now_ms = 1015000, .lag_ms = 15000, .window_ms = 300000});
  ASSERT_EQ(loads.size(), 1U);
  EXPECT_EQ(loads[0].pods, 2U);
  EXPECT_EQ(loads[0].placed, 2U);
  EXPECT_DOUBLE_EQ(loads[0].pending_plain, 2.0);
  state.replace_pods({{.uid = "b", .node = "n1", .scheduled_ms = 2000000}}, 2000000);
  EXPECT_EQ(state.pod_count(), 1U);
  state.upsert_pod({.uid = "b", .node = "n1", .terminal = true}, 2000000);
  EXPECT_EQ(state.pod_count(), 0U);
}

TEST(PlacementLedger, FinishedPlacementsAreForgottenButTheirPodsStillCount) {
  PlacementLedger state(315000);
  state.upsert_pod({.uid = "old", .node = "n1"}, 0);
  state.upsert_pod({.uid = "new", .node = "n1"}, 400000);
  state.replace_pods({{.uid = "listed-long-ago", .node = "n2", .scheduled_ms = 1}}, 400000);
  EXPECT_EQ(state.pod_count(), 1U) << "the relist replaced the watched pods";
  EXPECT_EQ(state.recent_count(), 0U) << "placed before the horizon: never pending";
  state.upsert_pod({.uid = "a", .node = "n1"}, 400000);
  state.upsert_pod({.uid = "b", .node = "n1"}, 500000);
  // At 715000, "a" is 315000 old (lag 15000 + window 300000: settled), "b" 215000 (pending 1/3).
  const auto loads = state.loads({.now_ms = 715000, .lag_ms = 15000, .window_ms = 300000});
  ASSERT_EQ(loads.size(), 2U);
  EXPECT_EQ(loads[0].name, "n1");
  EXPECT_EQ(loads[0].pods, 2U);
  EXPECT_EQ(loads[0].placed, 1U);
  EXPECT_DOUBLE_EQ(loads[0].pending_plain, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(loads[0].settled, 2.0 - 1.0 / 3.0);
  EXPECT_EQ(loads[1].pods, 1U);
  EXPECT_EQ(state.recent_count(), 1U) << "a's placement is forgotten";
  state.remove_pod("b", 715000);
  EXPECT_EQ(state.recent_count(), 0U);
}

TEST(PlacementLedger, AGonePodsTrafficLeavesTheWindowAsANewPodsEntersIt) {
  PlacementLedger state;
  state.upsert_pod(pod("a", "n1"), kLongAgo);
  state.remove_pod("a", kNow);
  // Still wholly in the window for the lag, then half of it after half the window more.
  auto loads = state.loads(at(kNow + kLagMs));
  EXPECT_EQ(load_of(loads, "n1").departed, 1U);
  EXPECT_DOUBLE_EQ(load_of(loads, "n1").departed_plain, 1.0);
  EXPECT_EQ(load_of(loads, "n1").pods, 0U);
  loads = state.loads(at(kNow + kLagMs + kWindowMs / 2));
  EXPECT_DOUBLE_EQ(load_of(loads, "n1").departed_plain, 0.5);
  loads = state.loads(at(kNow + kLagMs + kWindowMs));
  EXPECT_TRUE(loads.empty());  // nothing left on n1, not even the gone pod
}

// An evicted nominee's traffic stays counted on the node it left while the window holds it, so
// that its replacement is not scored back there; its workload still knows it gone.
TEST(PlacementLedger, ANomineesDepartureIsNotTakenOutOfItsNode) {
  PlacementLedger state;
  PodFacts nominee = pod("moved", "n1");
  nominee.nominated = true;
  state.upsert_pod(nominee, kLongAgo);
  state.upsert_pod(pod("gone", "n1"), kLongAgo);
  state.remove_pod("moved", kNow);
  state.remove_pod("gone", kNow);
  const auto loads = state.loads(at(kNow + kLagMs));
  EXPECT_EQ(load_of(loads, "n1").departed, 1U) << "the plain pod only";
  EXPECT_DOUBLE_EQ(load_of(loads, "n1").departed_plain, 1.0);
  EXPECT_EQ(state.pod_count(), 0U);
}

TEST(PlacementLedger, APodGoneBeforeItsTrafficReachedTheWindowTakesNothingOut) {
  PlacementLedger state;
  state.upsert_pod(pod("a", "n1"), kNow);
  state.upsert_pod(pod("b", "n1"), kLongAgo);
  state.remove_pod("a", kNow + kLagMs / 2);
  const auto loads = state.loads(at(kNow + kLagMs));
  EXPECT_EQ(load_of(loads, "n1").departed, 0U);  // forgotten: nothing of it to take out
  EXPECT_DOUBLE_EQ(load_of(loads, "n1").departed_plain, 0.0);
  EXPECT_EQ(load_of(loads, "n1").pods, 1U);
}

TEST(PlacementLedger, ARelistCountsOnlyThePodsMissingFromItAsGone) {
  PlacementLedger state;
  state.upsert_pod(pod("stays", "n1"), kLongAgo);
  state.upsert_pod(pod("goes", "n1"), kLongAgo);
  state.replace_pods({{.uid = "stays", .node = "n1", .scheduled_ms = 1}}, kNow);
  const auto loads = state.loads(at(kNow));
  EXPECT_EQ(load_of(loads, "n1").pods, 1U);
  EXPECT_EQ(load_of(loads, "n1").departed, 1U);
  EXPECT_EQ(load_of(loads, "n1").placed, 0U);  // kept its placement time
}

// Two nodes without background: n1 runs 2 pods of A and 1 of B and receives 5000 bytes/s, n2 runs
// 1 of A and 2 of B and receives 4000, so A = 2000 and B = 1000. They transmit 1500 and 2100:
// 2a + b = 1500, a + 2b = 2100, so A transmits 300 and B 900.
TEST(PlacementLedger, LearnsEachWorkloadsTrafficPerPodFromTheNodeRates) {
  PlacementLedger state;
  WorkloadLearner learner;
  state.upsert_node({.name = "n1"});
  state.upsert_node({.name = "n2"});
  state.upsert_pod(pod("seed", "n1"), kLongAgo);  // makes n1 known to the state
  state.upsert_pod(pod("seed2", "n2"), kLongAgo);
  state.remove_pod("seed", kLongAgo);
  state.remove_pod("seed2", kLongAgo);
  const std::vector<NodeRate> idle{{.node = "n1", .rate = 0, .transmit_rate = 0},
                                   {.node = "n2", .rate = 0, .transmit_rate = 0}};
  state.learn(learner, idle, at(kNow));  // backgrounds: 0
  EXPECT_EQ(state.workload_rate("ns/Deployment/a"), std::nullopt);
  for (const auto& [uid, node, w] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"a1", "n1", "ns/Deployment/a"},
           {"a2", "n1", "ns/Deployment/a"},
           {"b1", "n1", "ns/Deployment/b"},
           {"a3", "n2", "ns/Deployment/a"},
           {"b2", "n2", "ns/Deployment/b"},
           {"b3", "n2", "ns/Deployment/b"}}) {
    state.upsert_pod(pod(uid, node, w), kLongAgo);
  }
  const std::vector<NodeRate> busy{{.node = "n1", .rate = 5000, .transmit_rate = 1500},
                                   {.node = "n2", .rate = 4000, .transmit_rate = 2100}};
  for (int i = 0; i < 50; ++i) state.learn(learner, busy, at(kNow));
  ASSERT_TRUE(state.workload_rate("ns/Deployment/a").has_value());
  EXPECT_NEAR(*state.workload_rate("ns/Deployment/a"), 2000, 20);
  EXPECT_NEAR(*state.workload_rate("ns/Deployment/b"), 1000, 10);
  // An unknown pod: three pods of each, a mean of 1500 plus two deviations of 500.
  EXPECT_NEAR(state.learned_per_pod().receive.value_or(0), 2500, 25);
  ASSERT_TRUE(state.workload_transmit_rate("ns/Deployment/a").has_value());
  EXPECT_NEAR(*state.workload_transmit_rate("ns/Deployment/a"), 300, 3);
  EXPECT_NEAR(*state.workload_transmit_rate("ns/Deployment/b"), 900, 9);
  EXPECT_NEAR(state.learned_per_pod().transmit.value_or(0), 1200, 12);  // 600 + 2 x 300

  // A new pod of A is priced at A's traffic, one of an unknown workload is left to the caller.
  state.upsert_pod(pod("a4", "n2", "ns/Deployment/a"), kNow);
  state.upsert_pod(pod("c1", "n2", "ns/Deployment/c"), kNow);
  const auto loads = state.loads(at(kNow));
  EXPECT_NEAR(load_of(loads, "n2").pending_known, 2000, 20);
  EXPECT_DOUBLE_EQ(load_of(loads, "n2").pending_known_share, 1.0);
  EXPECT_DOUBLE_EQ(load_of(loads, "n2").pending_plain, 1.0);
  EXPECT_EQ(load_of(loads, "n2").priced_receive.workload, 1U);
  EXPECT_NEAR(load_of(loads, "n2").pending_transmit_known, 300, 3);
  EXPECT_DOUBLE_EQ(load_of(loads, "n2").pending_transmit_known_share, 1.0);
  EXPECT_EQ(load_of(loads, "n2").priced_transmit.workload, 1U);
}

// n1 known to the ledger (a pod was there) and measured idle: its receive background is 0.
void measure_n1_idle(PlacementLedger& state, WorkloadLearner& learner) {
  state.upsert_node({.name = "n1"});
  state.upsert_pod(pod("seed", "n1"), kLongAgo);
  state.remove_pod("seed", kLongAgo);
  state.learn(learner, std::vector<NodeRate>{{.node = "n1", .rate = 0}}, at(kNow));
}

// Nodes that measured no transmit rate leave transmit unlearned: the receive fit goes on alone.
TEST(PlacementLedger, WithoutTransmitRatesOnlyReceiveIsLearned) {
  PlacementLedger state;
  WorkloadLearner learner;
  measure_n1_idle(state, learner);
  state.upsert_pod(pod("a1", "n1", "ns/Deployment/a"), kLongAgo);
  for (int i = 0; i < 10; ++i)
    state.learn(learner, std::vector<NodeRate>{{.node = "n1", .rate = 2000}}, at(kNow));
  EXPECT_NEAR(state.workload_rate("ns/Deployment/a").value_or(0), 2000, 20);
  EXPECT_EQ(state.workload_transmit_rate("ns/Deployment/a"), std::nullopt);
  EXPECT_EQ(state.learned_per_pod().transmit, std::nullopt);
}

// x declares 3000 and a is unknown on a node measuring 4000: x's workload starts at its 3000, a's
// at the split (half of 4000 over two pods, 1000), which explains the node.
TEST(PlacementLedger, AnAnnotatedPodsWorkloadIsFittedFromItsAnnotation) {
  PlacementLedger state;
  WorkloadLearner learner;
  measure_n1_idle(state, learner);
  PodFacts annotated = pod("x", "n1", "ns/Deployment/x");
  annotated.annotated_rate = 3000;
  state.upsert_pod(annotated, kLongAgo);
  state.upsert_pod(pod("a1", "n1", "ns/Deployment/a"), kLongAgo);
  for (int i = 0; i < 20; ++i)
    state.learn(learner, std::vector<NodeRate>{{.node = "n1", .rate = 4000}}, at(kNow));
  EXPECT_NEAR(state.workload_rate("ns/Deployment/x").value_or(0), 3000, 30);
  EXPECT_NEAR(state.workload_rate("ns/Deployment/a").value_or(0), 1000, 10);
}

// A collector fits a round without its lock (collector/kube/cluster_state): a workload whose id
// is released meanwhile and taken by another must not give that one what the fit learned of it.
// The pod of A, measured at 2000 bytes/s on n1, moves to workload B while the round is fitted,
// which frees A's id; C, never measured (its node is not), takes it.
TEST(PlacementLedger, AWorkloadTakingAnIdReleasedDuringTheFitIsNotPricedAtItsPredecessors) {
  PlacementLedger state;
  WorkloadLearner learner;
  measure_n1_idle(state, learner);
  state.upsert_pod(pod("a1", "n1", "ns/Deployment/a"), kLongAgo);
  const std::vector<NodeRate> busy{{.node = "n1", .rate = 2000}};
  for (int i = 0; i < 5; ++i) state.learn(learner, busy, at(kNow));
  ASSERT_NEAR(state.workload_rate("ns/Deployment/a").value_or(0), 2000, 20);

  const LearningRound round = state.learning_round(busy, at(kNow));
  state.upsert_pod(pod("a1", "n1", "ns/Deployment/b"), kLongAgo);
  state.upsert_pod(pod("c1", "n2", "ns/Deployment/c"), kNow);
  round.fit(learner);
  state.take_learned(learner, round);
  EXPECT_EQ(state.workload_rate("ns/Deployment/a"), std::nullopt);
  EXPECT_EQ(state.workload_rate("ns/Deployment/c"), std::nullopt);
  EXPECT_EQ(load_of(state.loads(at(kNow)), "n2").priced_receive.workload, 0U);

  // The next round forgets A under that id; B, which holds the pod now, is learned from scratch.
  for (int i = 0; i < 5; ++i) state.learn(learner, busy, at(kNow));
  EXPECT_NEAR(state.workload_rate("ns/Deployment/b").value_or(0), 2000, 20);
  EXPECT_EQ(state.workload_rate("ns/Deployment/c"), std::nullopt);
}

TEST(PlacementLedger, NodesOfPodsByNameOffTheHostNetwork) {
  PlacementLedger state;
  state.upsert_pod({.uid = "1", .node = "n1", .name = "shop/web-0"}, kNow);
  state.upsert_pod({.uid = "h", .node = "n1", .name = "kube-system/e", .host_network = true}, kNow);
  const std::vector<std::string> names{"shop/web-0", "kube-system/e", "shop/none"};
  EXPECT_EQ(state.nodes_of_pods(names), (std::vector<std::string>{"n1", "", ""}));
  // A StatefulSet's pod recreated under its name before the old one's deletion is seen.
  state.upsert_pod({.uid = "2", .node = "n2", .name = "shop/web-0"}, kNow);
  state.remove_pod("1", kNow);
  EXPECT_EQ(state.nodes_of_pods(names), (std::vector<std::string>{"n2", "", ""}));
}

}  // namespace
}  // namespace netscore::model
