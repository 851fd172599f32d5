// The correction model with hand-computed expectations.
#include "common/model/correction.h"
#include "common/model/snapshot.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/common/model/model_fixtures.h"

namespace netscore::model {
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
  EXPECT_EQ(s.entries[0].flags, kEntryHasSeries | kEntryValid);
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
  EXPECT_EQ(s.info.flags, kSnapshotCorrected | kSnapshotClusterSynced);
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
  EXPECT_EQ(entry(s, "n3").flags, kEntryHasSeries | kEntryValid)
      << "a series without a watched node";
  EXPECT_EQ(entry(s, "n2").flags,
            kEntryHasSeries | kEntryInCluster | kEntryLabelsKnown | kEntryValid);
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
  EXPECT_EQ(entry(s, "n1").flags & kEntryRateValid, kEntryRateValid);
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
  EXPECT_EQ(s.info.flags, kSnapshotClusterSynced);
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
  EXPECT_EQ(e.flags, kEntryInCluster | kEntryLabelsKnown);
  EXPECT_EQ(e.rule_mask, 3U);
  EXPECT_EQ(entry(s, "n1").node_score, 0);  // the only valid node is the busiest
}

}  // namespace
}  // namespace netscore::model
