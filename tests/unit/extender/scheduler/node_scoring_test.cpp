#include "extender/scheduler/node_scoring.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace netscore::extender {
namespace {

NodeScore node(std::int64_t raw, std::int64_t score, std::int64_t corrected_raw,
               std::int64_t corrected_score) {
  return {{.raw_score = raw,
           .node_score = score,
           .corrected_raw_score = corrected_raw,
           .corrected_node_score = corrected_score,
           .flags = shm::kEntryValid},
          true};
}

struct Scored {
  std::array<std::int64_t, 3> out{};
  std::array<std::int16_t, 3> percent{};
};

Scored score(ScoringMode mode, const Lookup& lookup, const std::array<NodeScore, 3>& nodes,
             std::span<const std::uint32_t> assumed = {}) {
  Scored s;
  score_nodes(mode, 5, lookup, nodes, s.out, s.percent, assumed);
  return s;
}

const std::array<NodeScore, 3> kNodes = {node(0, 40, 100, 30), node(100, 90, 100, 80), NodeScore{}};

TEST(NodeScoringTest, RequestModeNormalisesMeasuredTraffic) {
  const Lookup fresh{.freshness = Freshness::fresh};
  const Scored s = score(ScoringMode::request, fresh, kNodes);
  EXPECT_EQ(s.out, (std::array<std::int64_t, 3>{10, 0, 5}));
  EXPECT_EQ(s.percent, (std::array<std::int16_t, 3>{100, 0, -1}));
}

TEST(NodeScoringTest, CorrectedSnapshotScoresMeasuredPlusExpected) {
  Lookup corrected_lookup{.freshness = Freshness::fresh};
  corrected_lookup.meta.flags = shm::kSnapshotCorrected;
  EXPECT_TRUE(corrected(corrected_lookup.meta));
  EXPECT_EQ(score(ScoringMode::request, corrected_lookup, kNodes).percent[0], 0);
  EXPECT_EQ(score(ScoringMode::cluster, corrected_lookup, kNodes).percent[1], 80);
  EXPECT_EQ(effective_node_score(kNodes[0], corrected_lookup.meta), 30);
  EXPECT_EQ(effective_node_score(kNodes[0], shm::SnapshotMeta{}), 40);
}

TEST(NodeScoringTest, AssumedPodsCostTwicePodPriceOnCorrectedSnapshots) {
  Lookup l{.freshness = Freshness::fresh};
  l.meta.flags = shm::kSnapshotCorrected;
  l.meta.pod_price = 50;
  const std::array<NodeScore, 3> nodes = {node(0, 0, 100, 0), node(0, 0, 150, 0), NodeScore{}};
  const std::array<std::uint32_t, 3> assumed = {1, 0, 0};
  // Node 0: 100 + 2 * 50 = 200, now the busiest.
  EXPECT_EQ(score(ScoringMode::request, l, nodes, assumed).percent[0], 0);
}

TEST(NodeScoringTest, AnythingButFreshIsNeutral) {
  const Scored s = score(ScoringMode::cluster, Lookup{.freshness = Freshness::stale}, kNodes);
  EXPECT_EQ(s.out, (std::array<std::int64_t, 3>{5, 5, 5}));
  EXPECT_EQ(s.percent, (std::array<std::int16_t, 3>{-1, -1, -1}));
}

}  // namespace
}  // namespace netscore::extender
