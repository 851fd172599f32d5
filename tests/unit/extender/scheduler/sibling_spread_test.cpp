// Burst spreading: one recommendation per pod of a workload, remembered until the table has had
// time to show the binding.
#include "extender/scheduler/sibling_spread.h"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <vector>

namespace netscore::extender {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kWindow = 200 * kMs;
const std::array<std::uint64_t, 4> kHashes{11, 22, 33, 44};

std::vector<std::uint32_t> unconfirmed(SiblingSpread& spread, std::string_view owner,
                                       std::int64_t now, std::int64_t published) {
  std::vector<std::uint32_t> times(kHashes.size());
  spread.unconfirmed(owner, kHashes, times, now, published, kWindow);
  return times;
}

TEST(SiblingSpread, RecommendsTheBestNodeAloneAndRemembersItForTheWorkload) {
  SiblingSpread spread;
  std::vector<std::int64_t> answers{10, 10, 7, 5};
  const std::vector<std::int16_t> percent{97, 99, 70, -1};
  EXPECT_EQ(spread.recommend("rs-1", "pod-a", kHashes, answers, percent, 0, kWindow), 1U);
  EXPECT_EQ(answers, (std::vector<std::int64_t>{9, 10, 7, 5}));  // the neutral node untouched
  EXPECT_EQ(unconfirmed(spread, "rs-1", 1 * kMs, 0), (std::vector<std::uint32_t>{0, 1, 0, 0}));
  EXPECT_EQ(unconfirmed(spread, "rs-2", 1 * kMs, 0), (std::vector<std::uint32_t>{0, 0, 0, 0}));
}

TEST(SiblingSpread, ARecommendationStopsCountingOnceASnapshotPublishedAWindowLaterExists) {
  SiblingSpread spread;
  std::vector<std::int64_t> answers{10, 10, 10, 10};
  const std::vector<std::int16_t> percent{100, 100, 100, 100};
  const std::size_t best =
      spread.recommend("rs-1", "pod-a", kHashes, answers, percent, 1000 * kMs, kWindow);
  ASSERT_LT(best, kHashes.size());
  EXPECT_EQ(unconfirmed(spread, "rs-1", 1100 * kMs, 1150 * kMs)[best], 1U);
  EXPECT_EQ(unconfirmed(spread, "rs-1", 1300 * kMs, 1200 * kMs)[best], 0U);
}

TEST(SiblingSpread, EqualNodesAreTieBrokenDifferentlyForDifferentPods) {
  std::set<std::size_t> chosen;
  for (int pod = 0; pod < 40; ++pod) {
    SiblingSpread spread;
    std::vector<std::int64_t> answers(kHashes.size(), 10);
    const std::vector<std::int16_t> percent(kHashes.size(), 100);
    chosen.insert(spread.recommend("rs-1", "pod-" + std::to_string(pod), kHashes, answers, percent,
                                   0, kWindow));
  }
  EXPECT_EQ(chosen.size(), kHashes.size());
}

TEST(SiblingSpread, OffWithoutOwnerOrWindowAndNeverRecommendsANeutralNode) {
  SiblingSpread spread;
  std::vector<std::int64_t> answers{5, 5, 5, 5};
  const std::vector<std::int16_t> neutral{-1, -1, -1, -1};
  EXPECT_EQ(spread.recommend("rs-1", "pod-a", kHashes, answers, neutral, 0, kWindow), 4U);
  const std::vector<std::int16_t> percent{50, 60, 70, 80};
  EXPECT_EQ(spread.recommend("", "pod-a", kHashes, answers, percent, 0, kWindow), 4U);
  EXPECT_EQ(spread.recommend("rs-1", "pod-a", kHashes, answers, percent, 0, 0), 4U);
  EXPECT_EQ(answers, (std::vector<std::int64_t>{5, 5, 5, 5}));
}

TEST(SiblingSpread, RemembersAtMostTheConfiguredNumberOfWorkloads) {
  SiblingSpread spread(2);
  const std::vector<std::int16_t> percent{10, 20, 30, 40};
  for (const char* owner : {"rs-1", "rs-2", "rs-3"}) {
    std::vector<std::int64_t> answers(kHashes.size(), 1);
    spread.recommend(owner, "pod", kHashes, answers, percent, 0, kWindow);
  }
  EXPECT_EQ(unconfirmed(spread, "rs-2", 1, 0)[3], 1U);
  EXPECT_EQ(unconfirmed(spread, "rs-3", 1, 0)[3], 0U);
  // Expired entries make room again.
  std::vector<std::int64_t> answers(kHashes.size(), 1);
  spread.recommend("rs-3", "pod", kHashes, answers, percent, 100 * kWindow, kWindow);
  EXPECT_EQ(unconfirmed(spread, "rs-3", 100 * kWindow + 1, 0)[3], 1U);
}

TEST(SiblingSpread, ScoreAndRecommendScoresWithTheUnconfirmedPodsThenRecommends) {
  SiblingSpread spread;
  std::vector<std::int64_t> answers(kHashes.size());
  std::vector<std::int16_t> percent(kHashes.size());
  std::vector<std::uint32_t> times(kHashes.size());
  const SiblingSpread::Pod pod{.owner = "rs-1",
                               .pod_uid = "pod-a",
                               .name_hashes = kHashes,
                               .now_ns = 0,
                               .published_ns = 0,
                               .window_ns = kWindow};
  // Node 2 scores best until a pod is assumed on it.
  const auto score = [&] {
    for (std::size_t i = 0; i < answers.size(); ++i) {
      percent[i] = static_cast<std::int16_t>(i == 2 && times[i] == 0 ? 90 : 50 + i);
      answers[i] = percent[i] / 10;
    }
  };
  EXPECT_EQ(spread.score_and_recommend(pod, times, answers, percent, score), 2U);
  EXPECT_EQ(answers, (std::vector<std::int64_t>{5, 5, 10, 5}));
  EXPECT_EQ(spread.score_and_recommend(pod, times, answers, percent, score), 3U);
  EXPECT_EQ(times, (std::vector<std::uint32_t>{0, 0, 1, 0}));
}

}  // namespace
}  // namespace netscore::extender
