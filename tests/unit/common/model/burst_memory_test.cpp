// Burst spreading: one recommendation per pod, remembered until the table has had time to show
// the binding, priced more for the pod's own workload than for others.
#include "common/model/burst_memory.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/model/pricing.h"

namespace netscore::model {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kWindow = 200 * kMs;
const std::array<std::uint64_t, 4> kHashes{11, 22, 33, 44};

std::vector<std::uint32_t> prices(const BurstMemory& memory, std::string_view owner,
                                  std::int64_t published) {
  std::vector<std::uint32_t> out(kHashes.size());
  memory.assumed_prices(owner, kHashes, out, published, kWindow);
  return out;
}

TEST(BurstMemory, RecommendsTheBestNodeAloneAndRemembersIt) {
  BurstMemory memory;
  std::vector<std::int64_t> answers{10, 10, 7, 5};
  const std::vector<std::int16_t> percent{97, 99, 70, -1};
  EXPECT_EQ(memory.recommend("rs-1", "pod-a", kHashes, answers, percent, 0, kWindow), 1U);
  EXPECT_EQ(answers, (std::vector<std::int64_t>{9, 10, 7, 5}));  // the neutral node untouched
  const auto sibling = static_cast<std::uint32_t>(kSiblingPodPrices);
  const auto other = static_cast<std::uint32_t>(kOtherPodPrices);
  EXPECT_EQ(prices(memory, "rs-1", 0), (std::vector<std::uint32_t>{0, sibling, 0, 0}));
  EXPECT_EQ(prices(memory, "rs-2", 0), (std::vector<std::uint32_t>{0, other, 0, 0}));
  EXPECT_EQ(prices(memory, "", 0), (std::vector<std::uint32_t>{0, other, 0, 0}));
}

// kube-scheduler's cache assumes every scheduled pod: pods without an owner are no exception,
// and they are not one workload either.
TEST(BurstMemory, PodsWithoutAnOwnerAreRememberedAsOtherPods) {
  BurstMemory memory;
  const std::vector<std::int16_t> percent{10, 20, 90, 40};
  for (const char* pod : {"bare-a", "bare-b"}) {
    std::vector<std::int64_t> answers(kHashes.size(), 5);
    EXPECT_EQ(memory.recommend("", pod, kHashes, answers, percent, 0, kWindow), 2U);
  }
  EXPECT_EQ(prices(memory, "", 1)[2], 2 * static_cast<std::uint32_t>(kOtherPodPrices));
  EXPECT_EQ(prices(memory, "rs-1", 1)[2], 2 * static_cast<std::uint32_t>(kOtherPodPrices));
}

TEST(BurstMemory, ARecommendationStopsCountingOnceASnapshotPublishedAWindowLaterExists) {
  BurstMemory memory;
  std::vector<std::int64_t> answers{10, 10, 10, 10};
  const std::vector<std::int16_t> percent{100, 100, 100, 100};
  const std::size_t best =
      memory.recommend("rs-1", "pod-a", kHashes, answers, percent, 1000 * kMs, kWindow);
  ASSERT_LT(best, kHashes.size());
  EXPECT_GT(prices(memory, "rs-1", 1150 * kMs)[best], 0U);
  EXPECT_EQ(prices(memory, "rs-1", 1200 * kMs)[best], 0U);
}

TEST(BurstMemory, EqualNodesAreTieBrokenDifferentlyForDifferentPods) {
  std::set<std::size_t> chosen;
  for (int pod = 0; pod < 40; ++pod) {
    BurstMemory memory;
    std::vector<std::int64_t> answers(kHashes.size(), 10);
    const std::vector<std::int16_t> percent(kHashes.size(), 100);
    chosen.insert(memory.recommend("rs-1", "pod-" + std::to_string(pod), kHashes, answers, percent,
                                   0, kWindow));
  }
  EXPECT_EQ(chosen.size(), kHashes.size());
}

TEST(BurstMemory, OffWithoutWindowAndNeverRecommendsANeutralNode) {
  BurstMemory memory;
  std::vector<std::int64_t> answers{5, 5, 5, 5};
  const std::vector<std::int16_t> neutral{-1, -1, -1, -1};
  EXPECT_EQ(memory.recommend("rs-1", "pod-a", kHashes, answers, neutral, 0, kWindow), 4U);
  const std::vector<std::int16_t> percent{50, 60, 70, 80};
  EXPECT_EQ(memory.recommend("rs-1", "pod-a", kHashes, answers, percent, 0, 0), 4U);
  EXPECT_EQ(answers, (std::vector<std::int64_t>{5, 5, 5, 5}));
  EXPECT_EQ(memory.size(), 0U);
}

// A cap passes over a node with that many of the owner's pods remembered while another node is
// usable, whatever their scores; other owners, pods without one, and a cap of 0 are not held.
TEST(BurstMemory, ACapPassesOverANodeWithThatManyOfTheOwnersPodsWhileAnotherIsUsable) {
  BurstMemory memory;
  const std::vector<std::int16_t> percent{90, 60, -1, 30};
  const auto pick = [&](std::string_view owner, std::uint32_t cap, std::int64_t now) {
    std::vector<std::int64_t> answers(kHashes.size(), 5);
    const std::size_t best =
        memory.recommend(owner, "pod", kHashes, answers, percent, now, kWindow, cap);
    if (best < answers.size()) {
      EXPECT_EQ(answers[best], 10) << best;
    }
    return best;
  };
  EXPECT_EQ(pick("ci/label/a", 2, 0), 0U);
  EXPECT_EQ(pick("ci/label/a", 2, 0), 0U);
  EXPECT_EQ(pick("ci/label/a", 2, 0), 1U);
  EXPECT_EQ(pick("ci/label/a", 2, 0), 1U);
  EXPECT_EQ(pick("ci/label/a", 2, 0), 3U);  // never the neutral node
  EXPECT_EQ(pick("ci/label/a", 2, 0), 3U);
  EXPECT_EQ(pick("ci/label/a", 2, 0), 0U);  // every usable node has two: the best again
  EXPECT_EQ(pick("ci/label/b", 2, 0), 0U);
  EXPECT_EQ(pick("", 2, 0), 0U);
  EXPECT_EQ(pick("ci/label/a", 0, 0), 0U);
  // Only the recommendations kept count: after ten windows the burst is over.
  EXPECT_EQ(pick("ci/label/c", 1, 0), 0U);
  EXPECT_EQ(pick("ci/label/c", 1, 0), 1U);
  EXPECT_EQ(pick("ci/label/c", 1, 11 * kWindow), 0U);
}

TEST(BurstMemory, RemembersAtMostItsCapacityAndForgetsOldRecommendations) {
  BurstMemory memory(2);
  const std::vector<std::int16_t> percent{10, 20, 30, 40};
  for (const char* owner : {"rs-1", "rs-2", "rs-3"}) {
    std::vector<std::int64_t> answers(kHashes.size(), 1);
    memory.recommend(owner, "pod", kHashes, answers, percent, 0, kWindow);
  }
  EXPECT_EQ(memory.size(), 2U);
  EXPECT_EQ(prices(memory, "rs-1", 0)[3], 2 * static_cast<std::uint32_t>(kOtherPodPrices));
  std::vector<std::int64_t> answers(kHashes.size(), 1);
  memory.recommend("rs-4", "pod", kHashes, answers, percent, 100 * kWindow, kWindow);
  EXPECT_EQ(memory.size(), 1U) << "ten windows old: forgotten";
}

}  // namespace
}  // namespace netscore::model
