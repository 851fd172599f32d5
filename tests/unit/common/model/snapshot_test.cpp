// Snapshot assembly with hand-computed scores: NormalizeScore is 100 - score * 100 / max in
// integer arithmetic, over the valid entries only.
#include "common/model/snapshot.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/unit/common/model/model_fixtures.h"

namespace netscore::model {
namespace {

TEST(Snapshot, EntriesAreSortedByNameWithTheirSeriesScores) {
  const std::vector<NodeSample> samples{{.node = "c", .value = 2500.9},
                                        {.node = "a", .value = 1000, .rate = 4, .rate_valid = true},
                                        {.node = "b", .value = 4000}};
  const auto s = build_snapshot(samples, 77, nullptr, {}, 0);
  ASSERT_EQ(s.entries.size(), 3U);
  EXPECT_EQ(s.entries[0].name, "a");
  EXPECT_EQ(s.entries[1].name, "b");
  EXPECT_EQ(s.entries[2].name, "c");
  EXPECT_EQ(entry(s, "c").raw_score, 2500);  // truncated toward zero, as Go's int64()
  EXPECT_EQ(entry(s, "a").node_score, 75);   // 100 - 1000*100/4000
  EXPECT_EQ(entry(s, "b").node_score, 0);
  EXPECT_EQ(entry(s, "c").node_score, 38);  // 100 - 2500*100/4000 = 100 - 62
  for (const auto& e : s.entries) {
    EXPECT_TRUE(e.valid());
    EXPECT_EQ(e.sample_ms, 77);
    EXPECT_EQ(e.corrected_raw_score, e.raw_score);
    EXPECT_EQ(e.corrected_node_score, e.node_score);
  }
  EXPECT_EQ(entry(s, "a").flags, kEntryValid | kEntryHasSeries | kEntryRateValid);
  EXPECT_EQ(entry(s, "a").rate, 4);
  EXPECT_EQ(entry(s, "b").flags, kEntryValid | kEntryHasSeries);
  EXPECT_EQ(entry(s, "b").rate, 0);
  EXPECT_EQ(s.info.eval_time_ms, 77);
  EXPECT_EQ(s.info.flags, 0U);
  EXPECT_EQ(s.placed, 0U);
}

TEST(Snapshot, AnEarlierNameOrderIsKeptOnlyWhenItOrdersTheNewSamples) {
  const std::vector<NodeSample> samples{
      {.node = "c", .value = 1}, {.node = "a", .value = 2}, {.node = "b", .value = 3}};
  const std::vector<std::size_t> sorted{1, 2, 0};  // a, b, c
  EXPECT_EQ(measure_snapshot(samples, 0).name_order, sorted);
  EXPECT_EQ(measure_snapshot(samples, 0, {}, sorted).name_order, sorted);
  const std::vector<std::vector<std::size_t>> unusable{
      {0, 1, 2}, {1, 2}, {1, 2, 0, 3}, {1, 2, 3}, {1, 1, 0}};
  for (const auto& hint : unusable)
    EXPECT_EQ(measure_snapshot(samples, 0, {}, hint).name_order, sorted);
  // Two series of one node: no order is strictly ascending, so the hint is never taken.
  const std::vector<NodeSample> twice{{.node = "b", .value = 1}, {.node = "b", .value = 2}};
  const std::vector<std::size_t> reversed{1, 0};
  const auto order = measure_snapshot(twice, 0, {}, reversed).name_order;
  EXPECT_EQ(order, measure_snapshot(twice, 0).name_order);
}

TEST(Snapshot, UnscorableValuesAreInvalidAndLeftOutOfTheNormalisation) {
  const std::vector<NodeSample> samples{
      {.node = "nan", .value = std::nan("")},
      {.node = "neg", .value = -5},
      {.node = "inf", .value = std::numeric_limits<double>::infinity()},
      {.node = "x", .value = 200},
      {.node = "y", .value = 800}};
  const auto s = build_snapshot(samples, 1, nullptr, {}, 0);
  ASSERT_EQ(s.entries.size(), 5U);
  for (const char* name : {"nan", "neg", "inf"}) {
    EXPECT_FALSE(entry(s, name).valid()) << name;
    EXPECT_EQ(entry(s, name).raw_score, 0) << name;
  }
  EXPECT_EQ(entry(s, "x").node_score, 75);  // 100 - 200*100/800: the invalid ones are no max
  EXPECT_EQ(entry(s, "y").node_score, 0);
}

TEST(Snapshot, EveryNodeIdleScoresFull) {
  const auto s =
      build_snapshot({{.node = "a", .value = 0}, {.node = "b", .value = 0}}, 1, nullptr, {}, 0);
  EXPECT_EQ(entry(s, "a").node_score, 100);
  EXPECT_EQ(entry(s, "b").node_score, 100);
}

TEST(Snapshot, ClusterViewIsTheUnionOfSeriesAndWatchedNodes) {
  NodeLoad labelled = watched("n2");
  labelled.rule_mask = 5;
  const std::vector<NodeLoad> loads{
      labelled, watched("edge"), {.name = "gone", .in_cluster = false}};
  const auto s = build_snapshot({{.node = "n1", .value = 100}, {.node = "n2", .value = 400}}, 3,
                                &loads, {.enabled = false}, 0xabc);
  ASSERT_EQ(s.entries.size(), 3U) << "a load of a node neither watched nor measured is dropped";
  EXPECT_EQ(entry(s, "n1").flags, kEntryValid | kEntryHasSeries);
  EXPECT_EQ(entry(s, "n2").flags,
            kEntryValid | kEntryHasSeries | kEntryInCluster | kEntryLabelsKnown);
  EXPECT_EQ(entry(s, "n2").rule_mask, 5U);
  EXPECT_FALSE(entry(s, "edge").valid());
  EXPECT_EQ(entry(s, "edge").flags, kEntryInCluster | kEntryLabelsKnown);
  EXPECT_EQ(entry(s, "n1").node_score, 75);  // 100 - 100*100/400
  EXPECT_EQ(entry(s, "n1").corrected_node_score, 75);
  EXPECT_EQ(s.info.flags, kSnapshotClusterSynced);
  EXPECT_EQ(s.info.rules_hash, 0xabcU);
  EXPECT_FALSE(s.corrected);
}

TEST(Snapshot, CorrectedScoresAreNormalisedOverTheCorrectedValues) {
  // Rate mode, per pod = raw of nodes with pods / settled pods = (1000 + 1000) / 2 = 1000.
  NodeLoad busy = watched("n1");
  busy.pods = 2;
  busy.placed = 1;
  busy.settled = 1;
  busy.pending_plain = 1;
  NodeLoad calm = watched("n2");
  calm.pods = 1;
  calm.settled = 1;
  const std::vector<NodeLoad> loads{busy, calm};
  const auto s =
      build_snapshot({{.node = "n1", .value = 1000}, {.node = "n2", .value = 1000}}, 3, &loads,
                     {.enabled = true, .function = QueryFunction::rate, .window_ms = 300000}, 0);
  ASSERT_TRUE(s.corrected);
  EXPECT_EQ(s.info.flags, kSnapshotClusterSynced | kSnapshotCorrected);
  EXPECT_EQ(s.info.pod_price, 1000);
  EXPECT_EQ(s.placed, 1U);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 2000);
  EXPECT_EQ(entry(s, "n1").corrected_node_score, 0);
  EXPECT_EQ(entry(s, "n2").corrected_node_score, 50);  // 100 - 1000*100/2000
  EXPECT_EQ(entry(s, "n1").node_score, 0) << "the seed scores stay the measurement's";
  EXPECT_EQ(entry(s, "n2").node_score, 0);
  EXPECT_EQ(entry(s, "n1").flags & kEntryPricedByAverage, kEntryPricedByAverage);
}

TEST(Snapshot, UtilisationAndRawNodesAreNormalisedEachAmongTheirOwn) {
  NodeSample quiet = both_directions(1024);  // 0.25
  quiet.node = "quiet";
  NodeSample busy = both_directions(1024);  // 512/1024 = 0.5
  busy.node = "busy";
  busy.rate = 512;
  const std::vector<NodeSample> samples{
      quiet, busy, {.node = "raw-big", .value = 4000}, {.node = "raw-small", .value = 1000}};
  const auto s = build_snapshot(samples, 1, nullptr, {}, 0, {},
                                scoring(ScoreBasis::utilisation, Direction::receive));
  EXPECT_EQ(entry(s, "quiet").raw_score, 250000);
  EXPECT_EQ(entry(s, "quiet").node_score, 50);  // 100 - 250000*100/500000
  EXPECT_EQ(entry(s, "busy").node_score, 0);
  // Among the raw ones alone: 4000 bytes is not compared with 500000 ppm.
  EXPECT_EQ(entry(s, "raw-small").node_score, 75);  // 100 - 1000*100/4000
  EXPECT_EQ(entry(s, "raw-big").node_score, 0);
  EXPECT_EQ(entry(s, "quiet").corrected_node_score, 50);
  EXPECT_EQ(entry(s, "raw-small").corrected_node_score, 75);
  EXPECT_EQ(s.info.basis, ScoreBasis::utilisation);
  EXPECT_EQ(s.info.direction, Direction::receive);

  // With a synced cluster the corrected scores are grouped the same way.
  const std::vector<NodeLoad> loads{watched("quiet"), watched("raw-small")};
  const auto synced = build_snapshot(samples, 1, &loads, {.enabled = true}, 0, {},
                                     scoring(ScoreBasis::utilisation, Direction::receive));
  EXPECT_EQ(entry(synced, "quiet").corrected_node_score, 50);
  EXPECT_EQ(entry(synced, "raw-small").corrected_node_score, 75);
  EXPECT_EQ(entry(synced, "busy").node_score, 0);
}

}  // namespace
}  // namespace netscore::model
