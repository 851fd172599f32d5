// Which pods the recent read names: those the read of every pod does not price, newest first,
// at most kMaxRecentPods.
#include "collector/pipeline/recent_pod_traffic.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace netscore::collector {
namespace {

constexpr std::int64_t kFullReadMs = 1'700'000'000'000;
constexpr model::LoadWindow kFullRead{
    .now_ms = kFullReadMs, .lag_ms = 15'000, .window_ms = 300'000};

std::unordered_map<std::string, PodRates> answered(const std::vector<std::string>& names) {
  std::unordered_map<std::string, PodRates> out;
  for (const std::string& name : names) out[name] = {.receive = 1, .receive_valid = true};
  return out;
}

TEST(RecentPodSelectionTest, PodsTheFullReadDoesNotPriceNewestFirst) {
  const std::vector<model::PlacedPod> placed{
      // Half the window held at the read, and answered: priced.
      {.name = "shop/settled", .placed_ms = kFullReadMs - 165'000},
      // Answered, but 10 s of its traffic in the window at the read: too little.
      {.name = "shop/young", .placed_ms = kFullReadMs - 25'000},
      // Placed after the read.
      {.name = "shop/after", .placed_ms = kFullReadMs + 5'000},
      // Held enough, but not in the answer (no series yet then).
      {.name = "shop/unanswered", .placed_ms = kFullReadMs - 200'000},
  };
  const RecentSelection s =
      select_recent_pods(placed, answered({"shop/settled", "shop/young", "shop/after"}), kFullRead);
  EXPECT_EQ(s.unpriced, (std::vector<std::string>{"shop/after", "shop/young", "shop/unanswered"}));
  EXPECT_EQ(s.asked, s.unpriced);
}

TEST(RecentPodSelectionTest, BeforeAnyFullReadEveryPlacedPodIsUnpriced) {
  const RecentSelection s = select_recent_pods(
      {{.name = "a/x", .placed_ms = 5}, {.name = "a/y", .placed_ms = 5}}, answered({"a/x"}),
      model::LoadWindow{.lag_ms = 15'000, .window_ms = 300'000});
  EXPECT_EQ(s.asked, (std::vector<std::string>{"a/x", "a/y"})) << "same time: by name";
  EXPECT_EQ(unpriced_since_ms({}), std::numeric_limits<std::int64_t>::min());
}

TEST(RecentPodSelectionTest, BeyondTheBoundTheOldestAreLeftOut) {
  std::vector<model::PlacedPod> placed;
  for (std::size_t i = 0; i < kMaxRecentPods + 10; ++i)
    placed.push_back({.name = "ns/p" + std::to_string(i),
                      .placed_ms = kFullReadMs + static_cast<std::int64_t>(i)});
  const RecentSelection s = select_recent_pods(placed, {}, kFullRead);
  EXPECT_EQ(s.unpriced.size(), kMaxRecentPods + 10);
  ASSERT_EQ(s.asked.size(), kMaxRecentPods);
  EXPECT_EQ(s.asked.front(), "ns/p" + std::to_string(kMaxRecentPods + 9));
  EXPECT_EQ(s.asked.back(), "ns/p10");
}

TEST(RecentPodSelectionTest, PodsWhollyInTheFullReadsWindowAreNeverUnpriced) {
  EXPECT_EQ(unpriced_since_ms(kFullRead), kFullReadMs - 315'000);
}

}  // namespace
}  // namespace netscore::collector
