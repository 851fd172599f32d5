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
