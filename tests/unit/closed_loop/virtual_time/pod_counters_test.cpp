// cAdvisor's per-pod counters in virtual time, read as Prometheus' rate() answers: every figure
// below worked out by hand from functions.go's extrapolatedRate.
#include "bench/closed_loop/virtual_time/pod_counters.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace netscore::sim {
namespace {

constexpr std::int64_t kWindowMs = 20000;

TEST(PodCountersTest, ANewPodsRateFromItsSecondScrapeIsItsTrafficOverTheWholeWindow) {
  PodCounters counters(kWindowMs);
  counters.start(7, "ci/runner-abcde", 10000, 1000, 100);
  counters.scrape(10000);  // the scrape that started it: one sample, no duplicate
  EXPECT_TRUE(counters.read(10000, kWindowMs).empty()) << "one sample gives no series";
  counters.scrape(11000);
  counters.scrape(12000);
  const auto read = counters.read(12000, kWindowMs);
  ASSERT_EQ(read.size(), 1U);
  EXPECT_EQ(read[0].pod, 7U);
  EXPECT_EQ(read[0].rates.name, "ci/runner-abcde");
  // 0, 1000, 2000 over 2 s: from 0, nothing extrapolated before its start; 2000 B / 20 s.
  EXPECT_DOUBLE_EQ(read[0].rates.receive, 100);
  EXPECT_DOUBLE_EQ(read[0].rates.transmit, 10);
}

TEST(PodCountersTest, DriftChangesTheRateFromItsMomentAndAStoppedPodIsGone) {
  PodCounters counters(kWindowMs);
  counters.start(1, "a/p", 10000, 1000, 0);
  counters.scrape(11000);
  counters.scrape(12000);
  counters.set_rates(1, 12500, 3000, 0);
  counters.scrape(13000);  // 2000 + 500 + 1500
  const auto read = counters.read(13000, 2000);
  ASSERT_EQ(read.size(), 1U);
  // 1000, 2000, 4000 on both edges of [11 s, 13 s]: 3000 B / 2 s.
  EXPECT_DOUBLE_EQ(read[0].rates.receive, 1500);
  EXPECT_DOUBLE_EQ(read[0].rates.transmit, 0);
  counters.stop(1);
  EXPECT_EQ(counters.running(), 0U);
  EXPECT_TRUE(counters.read(13000, 2000).empty());
}

TEST(PodCountersTest, ALongRunningPodIsExtrapolatedLikeAnyCounter) {
  PodCounters counters(kWindowMs);
  counters.start(2, "a/old", 0, 500, 0, 1e6);
  counters.scrape(1000);
  const auto read = counters.read(1000, kWindowMs);
  ASSERT_EQ(read.size(), 1U);
  // 5e8, 5e8 + 500 over 1 s; 19 s to the window's start, beyond 1.1 intervals: half an interval
  // added; 500 x 1.5 / 20.
  EXPECT_DOUBLE_EQ(read[0].rates.receive, 37.5);
}

TEST(PodCountersTest, AReadAsksOnlyThePodsItWantsInPodOrder) {
  PodCounters counters(kWindowMs);
  for (std::uint32_t pod : {5U, 3U, 9U}) counters.start(pod, "ns/p" + std::to_string(pod), 0, 1, 1);
  counters.scrape(1000);
  std::vector<std::uint32_t> pods;
  for (const auto& r : counters.read(1000, kWindowMs)) pods.push_back(r.pod);
  EXPECT_EQ(pods, (std::vector<std::uint32_t>{3, 5, 9}));
  const auto odd = counters.read(1000, kWindowMs, [](std::uint32_t pod) { return pod != 5; });
  ASSERT_EQ(odd.size(), 2U);
  EXPECT_EQ(odd[1].rates.name, "ns/p9");
}

TEST(PodCountersTest, SamplesOlderThanTheLongestRangeAreDropped) {
  PodCounters counters(3000);
  counters.start(1, "a/p", 0, 1000, 0);
  for (std::int64_t t = 1000; t <= 10000; t += 1000) counters.scrape(t);
  // Kept: 8 s to 10 s (a sample at or before 10 s - 3 s is dropped); a read over 9 s sees those
  // three only: 2000 B over 2 s, 7 s from the window's start (short of the counter's zero, 8 s
  // back), so half an interval added: 2000 x 2.5 / 2 / 9.
  const auto read = counters.read(10000, 9000);
  ASSERT_EQ(read.size(), 1U);
  EXPECT_DOUBLE_EQ(read[0].rates.receive, 2000.0 * 2.5 / 2 / 9);
}

}  // namespace
}  // namespace netscore::sim
