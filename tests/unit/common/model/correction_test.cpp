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

// The correction in each entry's basis and the snapshot's direction, with hand-computed
// expectations.
namespace netscore::model {
namespace {

// Utilisation basis, rate function: a node's rates (bytes/s) on a 4096 B/s link, so that every
// utilisation below is exact in binary and the expected values are plain fractions.
constexpr double kSpeed = 4096;

NodeSample linked(const std::string& node, double rx_rate, double tx_rate) {
  return model::linked(node, rx_rate, tx_rate, kSpeed);
}

BuiltSnapshot utilisation_snapshot(const std::vector<NodeSample>& samples,
                                   const std::vector<NodeLoad>& loads, Direction direction,
                                   double default_rx, double default_tx,
                                   const LearnedRates& learned = {}) {
  return build_snapshot(samples, 1, &loads,
                        {.enabled = true,
                         .function = QueryFunction::rate,
                         .window_ms = kWindowMs,
                         .default_rate = default_rx,
                         .default_transmit_rate = default_tx},
                        0, learned, {.basis = ScoreBasis::utilisation, .direction = direction});
}

TEST(UtilisationCorrection, PodsACeilingPricedAreFlaggedAndNotPricedAtTheAverage) {
  // One placed pod priced by its ceiling at 2048 B/s, wholly missing, both directions.
  NodeLoad shaped = load("n1", 1, 0, 0);
  shaped.placed = 1;
  shaped.pending_known = 2048;
  shaped.pending_known_share = 1;
  shaped.priced_receive.ceiling = 1;
  shaped.pending_transmit_known = 1024;
  shaped.pending_transmit_known_share = 1;
  shaped.priced_transmit.ceiling = 1;
  const auto s = utilisation_snapshot({linked("n1", 0, 0)}, {shaped}, Direction::max, 100, 100);
  ASSERT_TRUE(s.corrected);
  const auto& n1 = entry(s, "n1");
  EXPECT_DOUBLE_EQ(n1.expected, 0.5);  // receive 2048 / 4096, the busier direction
  EXPECT_EQ(n1.flags & (kEntryPricedByCeiling | kEntryPricedByAverage | kEntryPricedByAnnotation),
            kEntryPricedByCeiling);
  EXPECT_EQ(unpack_priced_by(pack_priced_by(n1.flags)),
            n1.flags & (kEntryPricedByAnnotation | kEntryPricedByWorkload | kEntryPricedByCeiling |
                        kEntryPricedByAverage));
}

TEST(UtilisationCorrection, ReceiveAnnotatedAveragedAndDefault) {
  // Annotated: half of a 2048 B/s pod is missing on a node receiving 1024: (1024 + 1024) / 4096.
  NodeLoad annotated = load("n1", 1, 0.5, 0);
  annotated.placed = 1;
  annotated.pending_known = 0.5 * 2048;
  annotated.pending_known_share = 0.5;
  annotated.priced_receive.annotation = 1;
  {
    const auto s =
        utilisation_snapshot({linked("n1", 1024, 0)}, {annotated}, Direction::receive, 100, 100);
    ASSERT_TRUE(s.corrected);
    const auto& n1 = entry(s, "n1");
    EXPECT_EQ(n1.scored, 0.25) << "the measurement is not overwritten";
    EXPECT_EQ(n1.rate, 1024);
    EXPECT_DOUBLE_EQ(n1.expected, 0.25);  // 0.5 - 0.25
    EXPECT_EQ(n1.corrected_raw_score, 500000);
    EXPECT_EQ(n1.raw_score, 250000);
    EXPECT_EQ(n1.flags & (kEntryPricedByAnnotation | kEntryPricedByAverage),
              kEntryPricedByAnnotation);
  }
  // Averaged: receive per settled pod over the nodes with pods = (1024 + 2048) / (1 + 1) = 1536;
  // n1's new plain pod: (1024 + 1536) / 4096 = 0.625. n3 has no pods and is no part of the mean.
  {
    const auto s = utilisation_snapshot(
        {linked("n1", 1024, 0), linked("n2", 2048, 0), linked("n3", 4000, 0)},
        {load("n1", 2, 1, 1), load("n2", 1, 1, 0)}, Direction::receive, 100, 100);
    ASSERT_TRUE(s.corrected);
    EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 0.625 - 0.25);
    EXPECT_EQ(entry(s, "n1").corrected_raw_score, 625000);
    EXPECT_EQ(entry(s, "n1").flags & kEntryPricedByAverage, kEntryPricedByAverage);
    EXPECT_EQ(s.info.pod_rate, 1536);
    EXPECT_EQ(s.info.pod_price, 1536) << "rate function: the raw unit is bytes/s";
    // Normalised among the utilisation nodes: n3 = 4000/4096 = 976562 ppm is the max.
    EXPECT_EQ(entry(s, "n1").corrected_node_score, 100 - 625000 * 100 / 976562);
  }
  // Default: nothing settled, so the default receive rate: (1024 + 512) / 4096 = 0.375.
  {
    const auto s = utilisation_snapshot({linked("n1", 1024, 0)}, {load("n1", 1, 0, 1)},
                                        Direction::receive, 512, 100);
    ASSERT_TRUE(s.corrected);
    EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 0.125);
    EXPECT_EQ(entry(s, "n1").corrected_raw_score, 375000);
    EXPECT_EQ(s.info.pod_rate, 512);
  }
  // Learned traffic per running pod comes before the measured mean: (1024 + 3072) / 4096 = 1.
  {
    const auto s = utilisation_snapshot({linked("n1", 1024, 0), linked("n2", 2048, 0)},
                                        {load("n1", 2, 1, 1), load("n2", 1, 1, 0)},
                                        Direction::receive, 100, 100, {.receive = 3072.0});
    EXPECT_EQ(entry(s, "n1").corrected_raw_score, 1000000);
    EXPECT_EQ(s.info.pod_rate, 3072);
  }
}

TEST(UtilisationCorrection, TransmitAnnotatedAveragedAndDefault) {
  // Annotated transmit: a new pod missing 3/4 of 1024 B/s, a gone one still holding 1/4 of 2048:
  // (1024 + 768 - 512) / 4096 = 0.3125. Its receive annotation plays no part in transmit.
  NodeLoad annotated = load("n1", 1, 0.25, 0);
  annotated.placed = 1;
  annotated.departed = 1;
  annotated.pending_known = 0.75 * 99999;
  annotated.pending_known_share = 0.75;
  annotated.priced_receive.annotation = 1;
  annotated.pending_transmit_known = 0.75 * 1024;
  annotated.pending_transmit_known_share = 0.75;
  annotated.departed_transmit_known = 0.25 * 2048;
  annotated.departed_transmit_known_share = 0.25;
  annotated.departed_known_share = 0.25;
  annotated.priced_transmit.annotation = 2;
  {
    const auto s =
        utilisation_snapshot({linked("n1", 0, 1024)}, {annotated}, Direction::transmit, 100, 100);
    ASSERT_TRUE(s.corrected);
    const auto& n1 = entry(s, "n1");
    EXPECT_EQ(n1.scored, 0.25);
    EXPECT_EQ(n1.transmit_rate, 1024);
    EXPECT_DOUBLE_EQ(n1.expected, 0.3125 - 0.25);
    EXPECT_EQ(n1.corrected_raw_score, 312500);
    EXPECT_EQ(n1.flags & (kEntryPricedByAnnotation | kEntryPricedByAverage),
              kEntryPricedByAnnotation);
    EXPECT_EQ(s.placed, 2U);
  }
  // Averaged: transmit per settled pod = (1024 + 3072) / (1 + 2) = 4096/3 B/s; n1's new pod:
  // (1024 + 4096/3) / 4096 = 1/4 + 1/3.
  {
    const auto s = utilisation_snapshot({linked("n1", 0, 1024), linked("n2", 0, 3072)},
                                        {load("n1", 2, 1, 1), load("n2", 2, 2, 0)},
                                        Direction::transmit, 100, 100);
    ASSERT_TRUE(s.corrected);
    EXPECT_NEAR(entry(s, "n1").expected, 1.0 / 3.0, 1e-12);
    EXPECT_EQ(entry(s, "n1").corrected_raw_score, 583333);  // 0.58333.. x 1e6, truncated
    EXPECT_NEAR(s.info.pod_rate, 4096.0 / 3.0, 1e-9);
    EXPECT_EQ(entry(s, "n1").flags & kEntryPricedByAverage, kEntryPricedByAverage);
  }
  // Learned transmit per running pod comes before the measured mean, and the learned receive
  // plays no part in transmit: (1024 + 2048) / 4096 = 0.75.
  {
    const auto s = utilisation_snapshot(
        {linked("n1", 0, 1024), linked("n2", 0, 3072)}, {load("n1", 2, 1, 1), load("n2", 2, 2, 0)},
        Direction::transmit, 100, 100, {.receive = 99999.0, .transmit = 2048.0});
    ASSERT_TRUE(s.corrected);
    EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 0.5);
    EXPECT_EQ(entry(s, "n1").corrected_raw_score, 750000);
    EXPECT_EQ(s.info.pod_rate, 2048);
  }
  // Default: the default transmit rate, not the receive one: (1024 + 2048) / 4096 = 0.75.
  {
    const auto s = utilisation_snapshot({linked("n1", 0, 1024)}, {load("n1", 1, 0, 1)},
                                        Direction::transmit, 512, 2048);
    ASSERT_TRUE(s.corrected);
    EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 0.5);
    EXPECT_EQ(entry(s, "n1").corrected_raw_score, 750000);
    EXPECT_EQ(s.info.pod_rate, 2048);
    EXPECT_EQ(s.info.pod_price, 2048);
  }
}

TEST(UtilisationCorrection, BusierTakesTheLargerCorrectedDirection) {
  // Measured: receive 1024 (0.25), transmit 512 (0.125): scored 0.25. Defaults 512 and 2048:
  // receive (1024 + 512) / 4096 = 0.375, transmit (512 + 2048) / 4096 = 0.625 -> 0.625.
  const auto s = utilisation_snapshot({linked("n1", 1024, 512)}, {load("n1", 1, 0, 1)},
                                      Direction::max, 512, 2048);
  ASSERT_TRUE(s.corrected);
  const auto& n1 = entry(s, "n1");
  EXPECT_EQ(n1.scored, 0.25);
  EXPECT_DOUBLE_EQ(n1.expected, 0.375);
  EXPECT_EQ(n1.corrected_raw_score, 625000);
  EXPECT_EQ(s.info.pod_rate, 2048) << "the larger of the two pod rates";
  // An annotated receive of 8192 B/s makes receive the busier: (1024 + 8192) / 4096 = 2.25.
  NodeLoad heavy = load("n1", 1, 0, 0);
  heavy.placed = 1;
  heavy.pending_known = 8192;
  heavy.pending_known_share = 1;
  heavy.priced_receive.annotation = 1;
  const auto r =
      utilisation_snapshot({linked("n1", 1024, 512)}, {heavy}, Direction::max, 512, 2048);
  EXPECT_DOUBLE_EQ(entry(r, "n1").expected, 2.0);
  EXPECT_EQ(entry(r, "n1").corrected_raw_score, 2250000);
  // Both directions priced it: receive by annotation, transmit at the default.
  EXPECT_EQ(entry(r, "n1").flags & (kEntryPricedByAnnotation | kEntryPricedByAverage),
            kEntryPricedByAnnotation | kEntryPricedByAverage);
}

TEST(UtilisationCorrection, GonePodsNeverTakeTheScoreBelowZero) {
  NodeLoad gone = load("n1", 0, 0, 0);
  gone.departed = 1;
  gone.departed_plain = 1;
  const auto s = utilisation_snapshot({linked("n1", 1024, 0)}, {gone}, Direction::receive, 4096, 0);
  ASSERT_TRUE(s.corrected);
  // (1024 - 4096) / 4096 = -0.75 corrected: expected is the whole estimate, -4096 / 4096.
  EXPECT_DOUBLE_EQ(entry(s, "n1").expected, -1.0);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 0);
  EXPECT_EQ(entry(s, "n1").placed_pods, 0U);
  EXPECT_EQ(s.placed, 1U);
}

// Raw basis, sum_over_time: receive factor (4000 + 6000) / (10 + 10) = 500 raw per B/s, transmit
// factor (9000 + 3000) / (30 + 10) = 300 raw per B/s.
std::vector<NodeSample> raw_both_directions() {
  return {{.node = "n1",
           .value = 4000,
           .rate = 10,
           .rate_valid = true,
           .transmit_value_valid = true,
           .transmit_rate_valid = true,
           .transmit_value = 9000,
           .transmit_rate = 30},
          {.node = "n2",
           .value = 6000,
           .rate = 10,
           .rate_valid = true,
           .transmit_value_valid = true,
           .transmit_rate_valid = true,
           .transmit_value = 3000,
           .transmit_rate = 10}};
}

BuiltSnapshot raw_snapshot(const std::vector<NodeLoad>& loads, Direction direction,
                           double default_rx, double default_tx) {
  return build_snapshot(raw_both_directions(), 1, &loads,
                        {.enabled = true,
                         .function = QueryFunction::sum_over_time,
                         .window_ms = kWindowMs,
                         .default_rate = default_rx,
                         .default_transmit_rate = default_tx},
                        0, {}, {.basis = ScoreBasis::raw, .direction = direction});
}

TEST(RawCorrection, TransmitConvertsByTheTransmitFactor) {
  // Nothing settled: the transmit default 10 B/s x 300 = 3000 on top of n1's 9000.
  const auto s = raw_snapshot({load("n1", 1, 0, 1)}, Direction::transmit, 4, 10);
  ASSERT_TRUE(s.corrected);
  const auto& n1 = entry(s, "n1");
  EXPECT_EQ(n1.scored, 9000);
  EXPECT_EQ(n1.raw_transmit, 9000);
  EXPECT_DOUBLE_EQ(n1.expected, 3000);
  EXPECT_EQ(n1.corrected_raw_score, 12000);
  EXPECT_EQ(s.info.pod_price, 3000);
  EXPECT_EQ(s.info.pod_rate, 10);
  // An annotated 20 B/s, half missing: 10 x 300.
  NodeLoad annotated = load("n1", 1, 0.5, 0);
  annotated.placed = 1;
  annotated.pending_known = 0.5 * 7;  // its receive annotation plays no part in transmit
  annotated.pending_known_share = 0.5;
  annotated.pending_transmit_known = 0.5 * 20;
  annotated.pending_transmit_known_share = 0.5;
  annotated.priced_transmit.annotation = 1;
  EXPECT_DOUBLE_EQ(entry(raw_snapshot({annotated}, Direction::transmit, 4, 10), "n1").expected,
                   3000);
  // Measured transmit per settled pod, no conversion: (9000 + 3000) / (1 + 1) = 6000.
  const auto m =
      raw_snapshot({load("n1", 2, 1, 1), load("n2", 1, 1, 0)}, Direction::transmit, 4, 10);
  EXPECT_DOUBLE_EQ(entry(m, "n1").expected, 6000);
  EXPECT_EQ(entry(m, "n1").corrected_raw_score, 15000);
  EXPECT_EQ(m.info.pod_price, 6000);
}

TEST(RawCorrection, BusierTakesTheLargerCorrectedRawValue) {
  // Receive 4000 + 4 x 500 = 6000, transmit 9000 + 10 x 300 = 12000: 12000, expected 3000.
  const auto s = raw_snapshot({load("n1", 1, 0, 1)}, Direction::max, 4, 10);
  ASSERT_TRUE(s.corrected);
  EXPECT_EQ(entry(s, "n1").scored, 9000);
  EXPECT_DOUBLE_EQ(entry(s, "n1").expected, 3000);
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 12000);
  EXPECT_EQ(s.info.pod_price, 3000);  // max(4 x 500, 10 x 300)
  // Receive 4000 + 20 x 500 = 14000 beats transmit 12000: expected 14000 - 9000.
  const auto r = raw_snapshot({load("n1", 1, 0, 1)}, Direction::max, 20, 10);
  EXPECT_DOUBLE_EQ(entry(r, "n1").expected, 5000);
  EXPECT_EQ(entry(r, "n1").corrected_raw_score, 14000);
  EXPECT_EQ(r.info.pod_price, 10000);
  EXPECT_EQ(r.info.pod_rate, 20);
}

TEST(RawCorrection, NoTransmitPriceLeavesTheSnapshotUncorrected) {
  // sum_over_time without transmit rates has no transmit factor, and nothing is settled.
  auto samples = raw_both_directions();
  for (auto& s : samples) s.transmit_rate_valid = false;
  const std::vector<NodeLoad> loads{load("n1", 1, 0, 1)};
  const auto s =
      build_snapshot(samples, 1, &loads,
                     {.enabled = true,
                      .function = QueryFunction::sum_over_time,
                      .window_ms = kWindowMs,
                      .default_rate = 4,
                      .default_transmit_rate = 10},
                     0, {}, {.basis = ScoreBasis::raw, .direction = Direction::transmit});
  EXPECT_FALSE(s.corrected);
  EXPECT_NE(s.uncorrected_reason.find("the default transmit rate"), std::string::npos)
      << s.uncorrected_reason;
  EXPECT_EQ(entry(s, "n1").corrected_raw_score, 9000);
  // The receive direction has its factor and is corrected.
  const auto rx = build_snapshot(samples, 1, &loads,
                                 {.enabled = true,
                                  .function = QueryFunction::sum_over_time,
                                  .window_ms = kWindowMs,
                                  .default_rate = 4,
                                  .default_transmit_rate = 10},
                                 0, {}, {});
  EXPECT_TRUE(rx.corrected);
  EXPECT_EQ(entry(rx, "n1").corrected_raw_score, 6000);
}

}  // namespace
}  // namespace netscore::model
