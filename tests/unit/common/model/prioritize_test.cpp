// The whole prioritize decision: scores, burst spreading and the pod's own price together, as the
// extender, the simulator and the herd test reach it.
#include "common/model/prioritize.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/model/burst_memory.h"

namespace netscore::model {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr PrioritizeSettings kSettings{
    .normalisation = Normalisation::request, .neutral = 5, .spread_window_ns = 200 * kMs};

NodeScore node(std::int64_t corrected_raw) {
  return {{.corrected_raw_score = corrected_raw, .flags = kEntryValid}, true};
}

struct Cluster {
  // Raw bytes: node 0 quietest by one and a half average pods (price 100).
  std::array<NodeScore, 4> nodes{node(100), node(250), node(350), node(400)};
  std::array<std::uint64_t, 4> hashes{1, 2, 3, 4};
  SnapshotMeta meta{};
  Cluster() {
    meta.flags = kSnapshotCorrected;
    meta.pod_price = 100;
    meta.published_mono_ns = 0;
  }
  TableRead read() const {
    return {.fresh = true, .meta = meta, .nodes = nodes, .name_hashes = hashes};
  }
};

// Which node each pod of a burst is recommended, all seeing the same snapshot.
std::vector<std::size_t> burst(const Cluster& c, BurstMemory* memory,
                               const std::vector<std::string>& owners) {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < owners.size(); ++p) {
    std::array<std::int64_t, 4> scores{};
    std::array<std::int16_t, 4> percent{};
    const std::string uid = "pod-" + std::to_string(p);
    out.push_back(prioritize(kSettings, c.read(), {.owner = owners[p], .uid = uid, .rate = 0},
                             static_cast<std::int64_t>(p) * kMs, memory, scores, percent));
  }
  return out;
}

struct Case {
  const char* what;
  std::vector<std::string> owners;
  std::vector<std::size_t> expected;
};

// Node 0 at 100, node 1 at 250. Siblings cost two prices: the second sibling sees node 0 at 300
// and goes to node 1 (250). Unrelated pods cost one: the second sees node 0 at 200, still the
// quietest; the third sees it at 300 and node 1 at 250.
TEST(Prioritize, EveryRecentPodCountsAndSiblingsCountMore) {
  const Cluster c;
  const std::vector<Case> cases{
      {"siblings", {"rs", "rs", "rs"}, {0, 1, 0}},
      {"pods without an owner", {"", "", ""}, {0, 0, 1}},
      {"one pod each of three workloads", {"a", "b", "c"}, {0, 0, 1}},
      {"a sibling after another workload's pod", {"a", "b", "a"}, {0, 0, 1}},
  };
  for (const Case& k : cases) {
    BurstMemory memory;
    EXPECT_EQ(burst(c, &memory, k.owners), k.expected) << k.what;
  }
}

TEST(Prioritize, WithoutMemoryOrSpreadingEveryPodSeesTheSameQuietestNode) {
  Cluster c;
  EXPECT_EQ(burst(c, nullptr, {"", "", ""}), (std::vector<std::size_t>{4, 4, 4}));
  BurstMemory memory;
  c.meta.flags = 0;  // uncorrected: the seed's scores, no spreading
  std::array<std::int64_t, 4> scores{};
  std::array<std::int16_t, 4> percent{};
  EXPECT_EQ(prioritize(kSettings, c.read(), {.owner = {}, .uid = "p", .rate = 0}, 0, &memory,
                       scores, percent),
            4U);
  EXPECT_EQ(memory.size(), 0U);
}

TEST(Prioritize, TheRecommendedNodeIsTheOnlyTen) {
  const Cluster c;
  BurstMemory memory;
  std::array<std::int64_t, 4> scores{};
  std::array<std::int16_t, 4> percent{};
  ASSERT_EQ(prioritize(kSettings, c.read(), {.owner = {}, .uid = "p", .rate = 0}, 0, &memory,
                       scores, percent),
            0U);
  // 100 - x*100/400 in Go's integers: 75, 38, 13, 0 → 10 (the recommendation), 4, 1, 0.
  EXPECT_EQ(scores, (std::array<std::int64_t, 4>{10, 4, 1, 0}));
  EXPECT_EQ(percent, (std::array<std::int16_t, 4>{75, 38, 13, 0}));
}

}  // namespace
}  // namespace netscore::model

// score_nodes: each node's score alone, before burst spreading.
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
