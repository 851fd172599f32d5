// The placement ledger: relists, placements forgotten once settled, pods gone
// while the window still holds their traffic, and what it feeds workload learning and prices at
// the learned rates (hand-computed cases; the fit itself: common/model/workload_learning_test).
#include "common/model/placement_ledger.h"

#include "common/model/pricing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace netscore::model {
namespace {

constexpr std::int64_t kLagMs = 15000;
constexpr std::int64_t kWindowMs = 300000;
constexpr std::int64_t kLongAgo = 1'000'000;  // placed long before `now`: settled
constexpr std::int64_t kNow = 10'000'000;

LoadWindow at(std::int64_t now_ms) {
  return {.now_ms = now_ms, .lag_ms = kLagMs, .window_ms = kWindowMs};
}

PodFacts pod(const std::string& uid, const std::string& node, const std::string& workload = {}) {
  return {.uid = uid, .node = node, .workload = workload};
}

const NodeLoad& load_of(const std::vector<NodeLoad>& loads, const std::string& node) {
  for (const auto& l : loads) {
    if (l.name == node) return l;
  }
  throw std::runtime_error("no load for " + node);
}

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
  state.upsert_node({.name = "n1"});
  state.upsert_node({.name = "n2"});
  state.upsert_pod(pod("seed", "n1"), kLongAgo);  // makes n1 known to the state
  state.upsert_pod(pod("seed2", "n2"), kLongAgo);
  state.remove_pod("seed", kLongAgo);
  state.remove_pod("seed2", kLongAgo);
  const std::vector<NodeRate> idle{{.node = "n1", .rate = 0, .transmit_rate = 0},
                                   {.node = "n2", .rate = 0, .transmit_rate = 0}};
  state.learn(idle, at(kNow));  // backgrounds: 0
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
  for (int i = 0; i < 50; ++i) state.learn(busy, at(kNow));
  ASSERT_TRUE(state.workload_rate("ns/Deployment/a").has_value());
  EXPECT_NEAR(*state.workload_rate("ns/Deployment/a"), 2000, 20);
  EXPECT_NEAR(*state.workload_rate("ns/Deployment/b"), 1000, 10);
  EXPECT_NEAR(state.learned_per_pod().receive.value_or(0), 1500, 15);
  ASSERT_TRUE(state.workload_transmit_rate("ns/Deployment/a").has_value());
  EXPECT_NEAR(*state.workload_transmit_rate("ns/Deployment/a"), 300, 3);
  EXPECT_NEAR(*state.workload_transmit_rate("ns/Deployment/b"), 900, 9);
  EXPECT_NEAR(state.learned_per_pod().transmit.value_or(0), 600, 6);

  // A new pod of A is priced at A's traffic, one of an unknown workload is left to the caller.
  state.upsert_pod(pod("a4", "n2", "ns/Deployment/a"), kNow);
  state.upsert_pod(pod("c1", "n2", "ns/Deployment/c"), kNow);
  const auto loads = state.loads(at(kNow));
  EXPECT_NEAR(load_of(loads, "n2").pending_known, 2000, 20);
  EXPECT_DOUBLE_EQ(load_of(loads, "n2").pending_known_share, 1.0);
  EXPECT_DOUBLE_EQ(load_of(loads, "n2").pending_plain, 1.0);
  EXPECT_EQ(load_of(loads, "n2").priced_by_workload, 1U);
  EXPECT_NEAR(load_of(loads, "n2").pending_transmit_known, 300, 3);
  EXPECT_DOUBLE_EQ(load_of(loads, "n2").pending_transmit_known_share, 1.0);
  EXPECT_EQ(load_of(loads, "n2").priced_by_transmit_workload, 1U);
}

// n1 known to the ledger (a pod was there) and measured idle: its receive background is 0.
void measure_n1_idle(PlacementLedger& state) {
  state.upsert_node({.name = "n1"});
  state.upsert_pod(pod("seed", "n1"), kLongAgo);
  state.remove_pod("seed", kLongAgo);
  state.learn(std::vector<NodeRate>{{.node = "n1", .rate = 0}}, at(kNow));
}

// Nodes that measured no transmit rate leave transmit unlearned: the receive fit goes on alone.
TEST(PlacementLedger, WithoutTransmitRatesOnlyReceiveIsLearned) {
  PlacementLedger state;
  measure_n1_idle(state);
  state.upsert_pod(pod("a1", "n1", "ns/Deployment/a"), kLongAgo);
  for (int i = 0; i < 10; ++i)
    state.learn(std::vector<NodeRate>{{.node = "n1", .rate = 2000}}, at(kNow));
  EXPECT_NEAR(state.workload_rate("ns/Deployment/a").value_or(0), 2000, 20);
  EXPECT_EQ(state.workload_transmit_rate("ns/Deployment/a"), std::nullopt);
  EXPECT_EQ(state.learned_per_pod().transmit, std::nullopt);
}

TEST(PlacementLedger, AnnotatedPodsAreFixedInTheFitAndPricedAtTheirAnnotation) {
  PlacementLedger state;
  measure_n1_idle(state);
  PodFacts annotated = pod("x", "n1", "ns/Deployment/x");
  annotated.annotated_rate = 3000;
  state.upsert_pod(annotated, kLongAgo);
  state.upsert_pod(pod("a1", "n1", "ns/Deployment/a"), kLongAgo);
  for (int i = 0; i < 20; ++i)
    state.learn(std::vector<NodeRate>{{.node = "n1", .rate = 4000}}, at(kNow));
  EXPECT_NEAR(state.workload_rate("ns/Deployment/a").value_or(0), 1000, 10);
}

TEST(PlacementLedger, TransmitAnnotationsArePricedOnTheirOwnSide) {
  PlacementLedger state;
  // Placed at kNow, seen half a window after the lag: half of each pod is still missing.
  PodFacts both = pod("both", "n1");
  both.annotated_rate = 100;
  both.annotated_transmit_rate = 4000;
  PodFacts transmit_only = pod("tx", "n1");
  transmit_only.annotated_transmit_rate = 600;
  state.upsert_pod(both, kNow);
  state.upsert_pod(transmit_only, kNow);
  state.upsert_pod(pod("plain", "n1"), kNow);
  // Gone at kNow after a long life: half a window later half of its traffic is still held.
  PodFacts gone = pod("gone", "n1");
  gone.annotated_transmit_rate = 2000;
  state.upsert_pod(gone, kLongAgo);
  state.remove_pod("gone", kNow);
  const auto loads = state.loads(at(kNow + kLagMs + kWindowMs / 2));
  const NodeLoad& n1 = load_of(loads, "n1");
  EXPECT_EQ(n1.placed, 3U);
  EXPECT_EQ(n1.departed, 1U);
  EXPECT_EQ(n1.priced_by_annotation, 1U) << "receive: only `both`";
  EXPECT_EQ(n1.priced_by_transmit_annotation, 3U);
  EXPECT_DOUBLE_EQ(n1.pending_known, 0.5 * 100);
  EXPECT_DOUBLE_EQ(n1.pending_known_share, 0.5);
  EXPECT_DOUBLE_EQ(n1.pending_plain, 1.0);  // tx and plain, half each
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, 0.5 * 4000 + 0.5 * 600);
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known_share, 1.0);
  EXPECT_DOUBLE_EQ(n1.departed_plain, 0.5) << "no receive annotation";
  EXPECT_DOUBLE_EQ(n1.departed_transmit_known, 0.5 * 2000);
  EXPECT_DOUBLE_EQ(n1.departed_transmit_known_share, 0.5);
}

PodFacts ceilinged(const std::string& uid, double receive_ceiling, double transmit_ceiling) {
  PodFacts p = pod(uid, "n1");
  p.receive_ceiling = receive_ceiling;
  p.transmit_ceiling = transmit_ceiling;
  return p;
}

TEST(PlacementLedger, ACeilingCapsAnAnnotationAndPricesAPodNothingElsePrices) {
  PlacementLedger state;
  PodFacts over = ceilinged("over", 1000, 300);
  over.annotated_rate = 5000;
  over.annotated_transmit_rate = 200;
  PodFacts under = ceilinged("under", 1000, -1);
  under.annotated_rate = 400;
  state.upsert_pod(over, kNow);
  state.upsert_pod(under, kNow);
  state.upsert_pod(ceilinged("only", 2000, 800), kNow);
  state.upsert_pod(pod("plain", "n1"), kNow);
  const std::vector<NodeLoad> n1_loads = state.loads(at(kNow));
  const NodeLoad& n1 = load_of(n1_loads, "n1");  // all wholly pending
  EXPECT_EQ(n1.placed, 4U);
  // Receive: over capped at 1000, under at its annotation, only at a share of its ceiling.
  EXPECT_DOUBLE_EQ(n1.pending_known, 1000 + 400 + 2000 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.pending_known_share, 3.0);
  EXPECT_DOUBLE_EQ(n1.pending_plain, 1.0);
  EXPECT_EQ(n1.priced_by_annotation, 1U) << "under";
  EXPECT_EQ(n1.priced_by_ceiling, 2U) << "over, only";
  // Transmit: over's annotation is below its ceiling; only at a share of its ceiling.
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, 200 + 800 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known_share, 2.0);
  EXPECT_EQ(n1.priced_by_transmit_annotation, 1U);
  EXPECT_EQ(n1.priced_by_transmit_ceiling, 1U);
}

TEST(PlacementLedger, AGonePodIsTakenOutAtItsCeilingsPrice) {
  PlacementLedger state;
  state.upsert_pod(ceilinged("gone", 1000, 600), kLongAgo);
  state.remove_pod("gone", kNow);
  const std::vector<NodeLoad> n1_loads = state.loads(at(kNow + kLagMs + kWindowMs / 2));
  const NodeLoad& n1 = load_of(n1_loads, "n1");
  EXPECT_EQ(n1.departed, 1U);
  EXPECT_DOUBLE_EQ(n1.departed_known, 0.5 * 1000 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.departed_transmit_known, 0.5 * 600 * kCeilingPodShare);
  EXPECT_DOUBLE_EQ(n1.departed_plain, 0.0);
}

TEST(PlacementLedger, APodIsPricedByItsOwnMeasurementThenItsWorkloadsMeasuredMean) {
  PlacementLedger state;
  const auto named = [](const std::string& uid, const std::string& workload) {
    return PodFacts{.uid = uid, .node = "n1", .workload = workload, .name = "shop/" + uid};
  };
  PodFacts annotated = named("own", "shop/Deployment/web");
  annotated.annotated_rate = 50;  // its measurement wins
  annotated.annotated_transmit_rate = 70;
  state.upsert_pod(annotated, kNow);
  state.upsert_pod(named("sibling", "shop/Deployment/web"), kNow);
  state.upsert_pod(named("settled", "shop/Deployment/web"), kLongAgo);
  state.upsert_pod(named("stranger", "shop/Deployment/other"), kNow);
  PodFacts shaped = named("shaped", "shop/Deployment/web");
  shaped.receive_ceiling = 100;
  state.upsert_pod(shaped, kNow);
  // Read half a window after the lag: the window holds half of each pod placed at kNow, and
  // nothing yet of `young`, whose rate over the window says too little.
  const std::int64_t read = kNow + kLagMs + kWindowMs / 2;
  state.upsert_pod(named("young", "shop/Deployment/web"), read);
  const std::vector<MeasuredPod> measured{{.name = "shop/own", .receive = 1000, .transmit = 10},
                                          {.name = "shop/settled", .receive = 3000},
                                          {.name = "shop/young", .receive = 1},
                                          {.name = "shop/gone-long-ago", .receive = 9}};
  state.measure_pods(measured, at(read));
  const std::vector<NodeLoad> n1_loads = state.loads(at(read));
  const NodeLoad& n1 = load_of(n1_loads, "n1");
  EXPECT_EQ(n1.placed, 5U);
  // own: 1000 over the half it held, 2000 B/s; web's mean: (2000 + 3000) / 2 = 2500 for sibling
  // and young; shaped: capped at 100; stranger: nothing known. Missing: half of each, young all.
  EXPECT_DOUBLE_EQ(n1.pending_known, 0.5 * 2000 + 0.5 * 2500 + 0.5 * 100 + 2500);
  EXPECT_DOUBLE_EQ(n1.pending_plain, 0.5);
  EXPECT_EQ(n1.priced_by_measurement, 1U);
  EXPECT_EQ(n1.priced_by_workload_measurement, 2U);
  EXPECT_EQ(n1.priced_by_ceiling, 1U);
  EXPECT_EQ(n1.priced_by_annotation, 0U);
  // Transmit: own 10 over its half, 20 B/s, alone in web's mean.
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, 0.5 * 20 + 0.5 * 20 + 0.5 * 20 + 20);
  EXPECT_EQ(n1.priced_by_transmit_measurement, 1U);
  EXPECT_EQ(n1.priced_by_transmit_workload_measurement, 3U);

  // A watch update keeps the measurement; a gone pod is taken out at its last; the next read
  // replaces them all.
  state.upsert_pod(annotated, read);
  EXPECT_EQ(load_of(state.loads(at(read)), "n1").priced_by_measurement, 1U);
  state.remove_pod("settled", read);
  state.measure_pods(std::vector<MeasuredPod>{}, at(read));
  const std::vector<NodeLoad> later_loads = state.loads(at(read + kLagMs + kWindowMs / 2));
  const NodeLoad& later = load_of(later_loads, "n1");
  EXPECT_EQ(later.departed, 1U);
  EXPECT_DOUBLE_EQ(later.departed_known, 0.5 * 3000);
  EXPECT_EQ(later.priced_by_measurement, 1U) << "the gone pod";
  EXPECT_EQ(later.priced_by_workload_measurement, 0U) << "nothing measured any more";
}

// The recent read's rates are the pods' own, counted as they are however young the pod; the
// pods it does not name keep what the read of every pod measured.
TEST(PlacementLedger, ARecentReadPricesItsPodsAtTheirOwnRatesAndLeavesTheRest) {
  PlacementLedger state;
  state.upsert_pod(
      {.uid = "old", .node = "n1", .workload = "shop/Deployment/web", .name = "shop/old"}, kNow);
  const std::int64_t read = kNow + kLagMs + kWindowMs / 2;
  state.measure_pods(std::vector<MeasuredPod>{{.name = "shop/old", .receive = 500}}, at(read));
  state.upsert_pod(
      {.uid = "new", .node = "n1", .workload = "shop/Deployment/web", .name = "shop/new"},
      read + 20'000);
  state.measure_recent_pods(
      std::vector<MeasuredPod>{{.name = "shop/new", .receive = 300, .transmit = 40}});
  const std::vector<NodeLoad> loads = state.loads(at(read + 30'000));
  const NodeLoad& n1 = load_of(loads, "n1");
  EXPECT_EQ(n1.placed, 2U);
  EXPECT_EQ(n1.priced_by_measurement, 2U);
  EXPECT_EQ(n1.priced_by_transmit_measurement, 1U);
  // old: 500 over the half it held, 1000 B/s, 0.4 of it still missing; new: all of 300 missing.
  const double old_pending = 0.4;
  EXPECT_DOUBLE_EQ(n1.pending_known, old_pending * 1000 + 300);
  // Transmit: new's own 40, old at its workload's measured mean, new's.
  EXPECT_DOUBLE_EQ(n1.pending_transmit_known, old_pending * 40 + 40);
}

TEST(PlacementLedger, PodsPlacedSinceAreThoseOffTheHostNetworkStillMaybePending) {
  PlacementLedger state(kLagMs + kWindowMs);
  state.upsert_pod({.uid = "1", .node = "n1", .name = "shop/early"}, kNow);
  state.upsert_pod({.uid = "2", .node = "n1", .name = "shop/late"}, kNow + 1'000);
  state.upsert_pod({.uid = "h", .node = "n1", .name = "kube-system/e", .host_network = true},
                   kNow + 1'000);
  const std::vector<PlacedPod> since = state.pods_placed_since(kNow + 1'000);
  ASSERT_EQ(since.size(), 1U);
  EXPECT_EQ(since[0].name, "shop/late");
  EXPECT_EQ(since[0].placed_ms, kNow + 1'000);
  EXPECT_EQ(state.pods_placed_since(0).size(), 2U);
  EXPECT_TRUE(window_measures_pod(kLagMs + kWindowMs / 5 + 1'000, at(0)));
  EXPECT_FALSE(window_measures_pod(kLagMs + kWindowMs / 5 - 1'000, at(0)));
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

// What the rebalance nomination reads: every named pod with its workload, placement and prices.
TEST(PlacementLedger, BoundPodsNameEachPodOffTheHostNetworkWithItsPrices) {
  PlacementLedger state;
  PodFacts measured = pod("m", "n1", "ns/Deployment/web");
  measured.name = "ns/web-1";
  measured.nominated = true;
  PodFacts annotated = pod("a", "n2", "ns/Deployment/web");
  annotated.name = "ns/web-2";
  annotated.annotated_rate = 500;
  PodFacts host = pod("h", "n1");
  host.name = "ns/agent";
  host.host_network = true;
  state.upsert_pod(measured, kLongAgo);
  state.upsert_pod(annotated, kLongAgo + 5);
  state.upsert_pod(host, kLongAgo);
  const std::vector<MeasuredPod> read{{.name = "ns/web-1", .receive = 2000, .transmit = 100}};
  state.measure_pods(read, at(kNow));
  auto pods = state.bound_pods();
  std::sort(pods.begin(), pods.end(),
            [](const BoundPod& x, const BoundPod& y) { return x.name < y.name; });
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_EQ(pods[0].name, "ns/web-1");
  EXPECT_EQ(pods[0].node, "n1");
  EXPECT_EQ(pods[0].workload, "ns/Deployment/web");
  EXPECT_EQ(pods[0].workload_pods, 2U);
  EXPECT_EQ(pods[0].placed_ms, kLongAgo);
  EXPECT_EQ(pods[0].receive.rate, 2000);
  EXPECT_EQ(pods[0].receive.source, PriceSource::measurement);
  EXPECT_EQ(pods[0].transmit.rate, 100);
  EXPECT_TRUE(pods[0].nominated);
  EXPECT_FALSE(pods[1].nominated);
  EXPECT_EQ(pods[1].name, "ns/web-2");
  EXPECT_EQ(pods[1].placed_ms, kLongAgo + 5);
  EXPECT_EQ(pods[1].receive.rate, 500);
  EXPECT_EQ(pods[1].receive.source, PriceSource::annotation);
  // Its workload's measured mean: the one measured pod's.
  EXPECT_EQ(pods[1].transmit.rate, 100);
  EXPECT_EQ(pods[1].transmit.source, PriceSource::workload_measurement);
}

}  // namespace
}  // namespace netscore::model
