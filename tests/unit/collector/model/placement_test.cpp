// The correction model with hand-computed expectations.
#include "collector/model/placement.h"
#include "collector/model/snapshot.h"

#include <gtest/gtest.h>

#include "tests/unit/collector/model/placement_fixtures.h"

namespace netscore::collector {
namespace {

TEST(PendingFraction, FullUntilTheLagThenLinearOverTheWindow) {
  const LoadWindow w{.now_ms = 0, .lag_ms = kLagMs, .window_ms = kWindowMs};
  EXPECT_EQ(pending_fraction(0, w), 1.0);
  EXPECT_EQ(pending_fraction(kLagMs, w), 1.0);
  EXPECT_DOUBLE_EQ(pending_fraction(kLagMs + 150000, w), 0.5);
  EXPECT_DOUBLE_EQ(pending_fraction(kLagMs + 240000, w), 0.2);
  EXPECT_EQ(pending_fraction(kLagMs + kWindowMs, w), 0.0);
  EXPECT_EQ(pending_fraction(-5000, w), 1.0) << "a clock step back must not make traffic negative";
}

TEST(BuildSnapshot, WithoutClusterItIsTodaysTable) {
  const auto s =
      build_snapshot({sample("b", 3000), sample("a", 1000)}, 42, nullptr, {.enabled = true}, 7);
  ASSERT_EQ(s.entries.size(), 2U);
  EXPECT_EQ(s.entries[0].name, "a");
  EXPECT_EQ(s.entries[0].node_score, 67);  // 100 - 1000*100/3000
  EXPECT_EQ(s.entries[0].corrected_node_score, 67);
  EXPECT_EQ(s.entries[0].corrected_raw_score, 1000);
  EXPECT_EQ(s.entries[0].expected, 0);
  EXPECT_EQ(s.entries[0].flags, shm::kEntryHasSeries | shm::kEntryValid);
  EXPECT_EQ(s.entries[1].node_score, 0);
  EXPECT_EQ(s.info.flags, 0U);
  EXPECT_EQ(s.info.rules_hash, 0U);
  EXPECT_EQ(s.info.eval_time_ms, 42);
  EXPECT_FALSE(s.corrected);
}

TEST(BuildSnapshot, MeasuredTrafficPerPodInRateMode) {
  // n1: one settled pod and one just placed; n2: three settled pods; per pod (1000+3000)/4 = 1000.
  const std::vector<NodeLoad> loads{load("n1", 2, 1, 1), load("n2", 3, 3, 0)};
  const auto s =
      build_snapshot({sample("n1", 1000), sample("n2", 3000), sample("n3", 2000)}, 1, &loads,
                     {.enabled = true, .function = QueryFunction::rate, .window_ms = kWindowMs}, 9);
  ASSERT_TRUE(s.corrected);
  EXPECT_EQ(s.info.flags, shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  EXPECT_EQ(s.info.rules_hash, 9U);
  EXPECT_EQ(s.placed, 1U);
  const auto& n1 = entry(s, "n1");
  EXPECT_DOUBLE_EQ(n1.expected, 1000);
  EXPECT_EQ(n1.placed_pods, 1U);
  EXPECT_EQ(n1.raw_score, 1000);
  EXPECT_EQ(n1.corrected_raw_score, 2000);
  EXPECT_EQ(n1.node_score, 67);            // seed: 100 - 1000*100/3000
  EXPECT_EQ(n1.corrected_node_score, 34);  // 100 - 2000*100/3000
  EXPECT_EQ(entry(s, "n3").corrected_node_score, 34);
  EXPECT_EQ(entry(s, "n3").flags, shm::kEntryHasSeries | shm::kEntryValid)
      << "a series without a watched node";
  EXPECT_EQ(entry(s, "n2").flags, shm::kEntryHasSeries | shm::kEntryInCluster |
                                      shm::kEntryLabelsKnown | shm::kEntryValid);
}

TEST(BuildSnapshot, AnnotatedRateInIncreaseMode) {
  // Half of an annotated 10 B/s pod is missing; increase counts bytes per 300 s window: 5 x 300.
  NodeLoad l = load("n1", 1, 0.5, 0);
  l.placed = 1;
  l.pending_known = 5;
  l.pending_known_share = 0.5;
  const std::vector<NodeLoad> loads{l};
  const auto s = build_snapshot({sample("n1", 600)}, 1, &loads,
                                {.enabled = true,
                                 .function = QueryFunction::increase,
                                 .window_ms = kWindowMs,
                                 .default_rate = 2},
                                0);
  ASSERT_TRUE(s.corrected);
  EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 1500);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 2100);
}

TEST(BuildSnapshot, SumOverTimeConvertsByTheClusterRatio) {
  // k = (4000 + 6000) / (10 + 10) = 500 raw per B/s; no settled pod: the default 4 B/s x 500.
  const std::vector<NodeLoad> loads{load("n1", 1, 0, 1)};
  const auto s = build_snapshot(
      {sample_with_rate("n1", 4000, 10), sample_with_rate("n2", 6000, 10)}, 1, &loads,
      {.enabled = true,
       .function = QueryFunction::sum_over_time,
       .window_ms = kWindowMs,
       .default_rate = 4},
      0);
  ASSERT_TRUE(s.corrected);
  EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 2000);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 6000);
  EXPECT_EQ(entry(s, "n1").flags & shm::kEntryRateValid, shm::kEntryRateValid);
  EXPECT_EQ(entry(s, "n1").rate, 10);
}

TEST(BuildSnapshot, NoUsableTrafficPerPodLeavesTheSnapshotUncorrected) {
  const std::vector<NodeLoad> loads{load("n1", 1, 0, 1)};
  const auto s = build_snapshot({sample("n1", 4000), sample("n2", 1000)}, 1, &loads,
                                {.enabled = true,
                                 .function = QueryFunction::sum_over_time,
                                 .window_ms = kWindowMs,
                                 .default_rate = 4},
                                0);
  EXPECT_FALSE(s.corrected);
  EXPECT_FALSE(s.uncorrected_reason.empty());
  EXPECT_EQ(s.info.flags, shm::kSnapshotClusterSynced);
  EXPECT_EQ(entry(s, "n1").expected, 0);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 4000);
  EXPECT_EQ(entry(s, "n1").corrected_node_score, 0);
  EXPECT_EQ(entry(s, "n2").corrected_node_score, 75);
}

TEST(BuildSnapshot, DisabledCorrectionKeepsSeedValues) {
  const std::vector<NodeLoad> loads{load("n1", 2, 1, 1)};
  const auto s = build_snapshot(
      {sample("n1", 1000), sample("n2", 2000)}, 1, &loads,
      {.enabled = false, .function = QueryFunction::rate, .window_ms = kWindowMs}, 0);
  EXPECT_FALSE(s.corrected);
  EXPECT_EQ(entry(s, "n1").expected, 0);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 1000);
  EXPECT_EQ(entry(s, "n1").corrected_node_score, 50);
  EXPECT_EQ(entry(s, "n1").placed_pods, 0U);
}

TEST(BuildSnapshot, WatchedNodeWithoutSeriesIsAnInvalidEntry) {
  NodeLoad edge = load("edge-1", 0, 0, 0);
  edge.rule_mask = 3;
  const std::vector<NodeLoad> loads{edge};
  const auto s = build_snapshot({sample("n1", 1000)}, 1, &loads, {.enabled = true}, 0);
  ASSERT_EQ(s.entries.size(), 2U);
  const auto& e = entry(s, "edge-1");
  EXPECT_FALSE(e.valid());
  EXPECT_EQ(e.flags, shm::kEntryInCluster | shm::kEntryLabelsKnown);
  EXPECT_EQ(e.rule_mask, 3U);
  EXPECT_EQ(entry(s, "n1").node_score, 0);  // the only valid node is the busiest
}

TEST(ClusterState, RelistKeepsPlacementTimesAndDropsVanishedPods) {
  ClusterState state;
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

TEST(ClusterState, FinishedPlacementsAreForgottenButTheirPodsStillCount) {
  ClusterState state(315000);
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

TEST(KubeObjects, ParsesTimestampsAndTheRateAnnotation) {
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:01Z"), 1000);
  EXPECT_EQ(parse_rfc3339_ms("2023-03-01T10:00:00.250Z"), 1677664800250);
  EXPECT_EQ(parse_rfc3339_ms("2023-03-01T12:00:00+02:00"), 1677664800000);
  EXPECT_FALSE(parse_rfc3339_ms("yesterday").has_value());
  const auto pod = parse_pod(std::string_view(
      R"({"metadata":{"uid":"u1","resourceVersion":"7","creationTimestamp":"1970-01-01T00:00:01Z",)"
      R"("annotations":{"netscore.io/expected-receive-rate":"2500"}},"spec":{"nodeName":"n1"},)"
      R"("status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"1970-01-01T00:00:05Z"}]}})"));
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->node, "n1");
  EXPECT_EQ(pod->scheduled_ms, 5000);
  EXPECT_EQ(pod->annotated_rate, 2500);
  EXPECT_EQ(pod->resource_version, "7");
  EXPECT_FALSE(parse_pod(std::string_view(R"({"metadata":{}})")).has_value());
  const auto bad_rate = parse_pod(std::string_view(
      R"({"metadata":{"uid":"u","annotations":{"netscore.io/expected-receive-rate":"-3"}}})"));
  ASSERT_TRUE(bad_rate.has_value());
  EXPECT_LT(bad_rate->annotated_rate, 0);
}

}  // namespace
}  // namespace netscore::collector
