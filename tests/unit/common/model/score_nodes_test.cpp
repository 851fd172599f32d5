#include "common/model/prioritize.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>
#include <cstdint>

namespace netscore::model {
namespace {

NodeScore node(std::int64_t raw, std::int64_t score, std::int64_t corrected_raw,
               std::int64_t corrected_score) {
  return {{.raw_score = raw,
           .node_score = score,
           .corrected_raw_score = corrected_raw,
           .corrected_node_score = corrected_score,
           .flags = kEntryValid},
          true};
}

struct Scored {
  std::array<std::int64_t, 3> out{};
  std::array<std::int16_t, 3> percent{};
};

TableRead read(std::span<const NodeScore> nodes, SnapshotMeta meta = {}, bool fresh = true) {
  return {.fresh = fresh, .meta = meta, .nodes = nodes, .name_hashes = {}};
}

Scored score(Normalisation mode, const TableRead& table,
             std::span<const std::uint32_t> assumed = {}) {
  Scored s;
  score_nodes(mode, 5, table, s.out, s.percent, assumed);
  return s;
}

const std::array<NodeScore, 3> kNodes = {node(0, 40, 100, 30), node(100, 90, 100, 80), NodeScore{}};

TEST(NodeScoringTest, RequestModeNormalisesMeasuredTraffic) {
  const Scored s = score(Normalisation::request, read(kNodes));
  EXPECT_EQ(s.out, (std::array<std::int64_t, 3>{10, 0, 5}));
  EXPECT_EQ(s.percent, (std::array<std::int16_t, 3>{100, 0, -1}));
}

TEST(NodeScoringTest, CorrectedSnapshotScoresMeasuredPlusExpected) {
  SnapshotMeta meta{};
  meta.flags = kSnapshotCorrected;
  EXPECT_TRUE(corrected(meta));
  EXPECT_EQ(score(Normalisation::request, read(kNodes, meta)).percent[0], 0);
  EXPECT_EQ(score(Normalisation::cluster, read(kNodes, meta)).percent[1], 80);
  EXPECT_EQ(effective_node_score(kNodes[0], meta), 30);
  EXPECT_EQ(effective_node_score(kNodes[0], SnapshotMeta{}), 40);
}

TEST(NodeScoringTest, AssumedPodsCostTheirPricesOnCorrectedSnapshots) {
  SnapshotMeta meta{};
  meta.flags = kSnapshotCorrected;
  meta.pod_price = 50;
  const std::array<NodeScore, 3> nodes = {node(0, 0, 100, 0), node(0, 0, 150, 0), NodeScore{}};
  const std::array<std::uint32_t, 3> assumed = {2, 0, 0};
  // Node 0: 100 + 2 * 50 = 200, now the busiest.
  EXPECT_EQ(score(Normalisation::request, read(nodes, meta), assumed).percent[0], 0);
  // One price: 150 against 150, both 0.
  const std::array<std::uint32_t, 3> one = {1, 0, 0};
  EXPECT_EQ(score(Normalisation::request, read(nodes, meta), one).percent[0], 0);
  EXPECT_EQ(score(Normalisation::request, read(nodes, meta), one).percent[1], 0);
}

NodeScore on_link(std::int64_t score, std::int64_t corrected_score, double speed) {
  NodeScore n = node(score, 0, corrected_score, 0);
  n.flags |= kEntryUtilisation;
  n.speed = speed;
  return n;
}

TEST(NodeScoringTest, AnAssumedPodOnALinkCostsItsRateOverThatLinksSpeed) {
  SnapshotMeta meta{};
  meta.flags = kSnapshotCorrected;
  meta.pod_price = 300;  // bytes, for the raw-scored nodes
  meta.pod_rate = 1024;  // bytes/s
  EXPECT_EQ(pod_price(node(0, 0, 0, 0), meta), 300);
  EXPECT_EQ(pod_price(on_link(0, 0, 4096), meta), 250000);  // 1024 / 4096 in ppm
  EXPECT_EQ(pod_price(on_link(0, 0, 16384), meta), 62500);  // a link four times faster
  EXPECT_EQ(pod_price(on_link(0, 0, 0), meta), 0) << "no speed: no utilisation to add";

  const std::array<NodeScore, 4> nodes = {on_link(0, 250000, 4096), on_link(0, 500000, 16384),
                                          node(0, 0, 1000, 0), node(0, 0, 3200, 0)};
  const TableRead l = read(nodes, meta);
  const std::array<std::uint32_t, 4> assumed = {2, 0, 2, 0};
  std::array<std::int64_t, 4> out{};
  std::array<std::int16_t, 4> percent{};
  score_nodes(Normalisation::request, 5, l, out, percent, assumed);
  // Each link is compared with the pod on it (four prices) plus the assumed pods (two each).
  // Link 0: 250000 + 4 x 250000 + 2 x 250000 = 1750000; link 1: 500000 + 4 x 62500 = 750000, so
  // 100 - 75000000/1750000. Raw nodes get no such term: 1000 + 2 x 300 = 1600 against 3200.
  EXPECT_EQ(percent, (std::array<std::int16_t, 4>{0, 58, 50, 0}));
  // The assumed pod on the fast link costs a quarter of one on the slow link: link 0 250000 +
  // 1000000 = 1250000 stays the busier, link 1 500000 + 250000 + 2 x 62500 = 875000.
  const std::array<std::uint32_t, 4> on_fast = {0, 2, 0, 0};
  score_nodes(Normalisation::request, 5, l, out, percent, on_fast);
  EXPECT_EQ(percent[0], 0);
  EXPECT_EQ(percent[1], 30);  // 100 - 87500000/1250000
}

// An idle slow link looks as good as an idle fast one until the pod is counted on it: the same
// pod fills ten times as much of it.
TEST(NodeScoringTest, ALinkIsComparedWithThePodOnIt) {
  SnapshotMeta meta{};
  meta.flags = kSnapshotCorrected;
  meta.pod_price = 1;
  meta.pod_rate = 1e6;
  // Both at 10% of their link: slow 1e7 B/s, fast 1e8 B/s.
  const std::array<NodeScore, 2> nodes = {on_link(0, 100000, 1e7), on_link(0, 100000, 1e8)};
  const TableRead l = read(nodes, meta);
  std::array<std::int64_t, 2> out{};
  std::array<std::int16_t, 2> percent{};
  score_nodes(Normalisation::request, 5, l, out, percent);
  // Four prices of the pod: slow 100000 + 4 x 100000 = 500000 ppm; fast 100000 + 4 x 10000 =
  // 140000, so 100 - 14000000/500000.
  EXPECT_EQ(percent, (std::array<std::int16_t, 2>{0, 72}));
  EXPECT_EQ(out, (std::array<std::int64_t, 2>{0, 7}));
  // Uncorrected snapshots carry no pod price: the measured figures alone, as before.
  const std::array<NodeScore, 2> measured = {on_link(100000, 0, 1e7), on_link(100000, 0, 1e8)};
  score_nodes(Normalisation::request, 5, read(measured), out, percent);
  EXPECT_EQ(percent, (std::array<std::int16_t, 2>{0, 0}));
}

TEST(NodeScoringTest, AKnownPodRateReplacesTheFourUnknownPrices) {
  SnapshotMeta meta{};
  meta.flags = kSnapshotCorrected;
  meta.pod_price = 1;
  meta.pod_rate = 1e6;
  const std::array<NodeScore, 2> nodes = {on_link(0, 100000, 1e7), on_link(0, 100000, 1e8)};
  const TableRead l = read(nodes, meta);
  std::array<std::int64_t, 2> out{};
  std::array<std::int16_t, 2> percent{};
  // 2e6 B/s once: slow 100000 + 200000 = 300000; fast 100000 + 20000, 100 - 12000000/300000.
  score_nodes(Normalisation::request, 5, l, out, percent, {}, 2e6);
  EXPECT_EQ(percent, (std::array<std::int16_t, 2>{0, 60}));
}

TEST(NodeScoringTest, AnythingButFreshIsNeutral) {
  const Scored s = score(Normalisation::cluster, read(kNodes, {}, false));
  EXPECT_EQ(s.out, (std::array<std::int64_t, 3>{5, 5, 5}));
  EXPECT_EQ(s.percent, (std::array<std::int16_t, 3>{-1, -1, -1}));
}

}  // namespace
}  // namespace netscore::model
