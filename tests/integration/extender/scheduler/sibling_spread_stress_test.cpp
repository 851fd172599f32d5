// SiblingSpread is shared by every server thread: recommendations for one workload made from
// several threads at once must all be remembered, and reads must see whole lists.
#include "extender/scheduler/sibling_spread.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace netscore::extender {
namespace {

constexpr std::int64_t kWindowNs = std::int64_t{3600} * 1'000'000'000;
constexpr int kThreads = 4;
constexpr int kCallsPerThread = 2000;

TEST(SiblingSpreadStress, ConcurrentRecommendationsAreAllCounted) {
  SiblingSpread spread;
  const std::array<std::uint64_t, 8> hashes{1, 2, 3, 4, 5, 6, 7, 8};
  std::atomic<bool> go{false};
  std::atomic<std::uint64_t> torn{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      std::vector<std::int64_t> answers(hashes.size());
      const std::vector<std::int16_t> percent(hashes.size(), 100);
      std::vector<std::uint32_t> times(hashes.size());
      std::uint32_t seen = 0;
      for (int i = 0; i < kCallsPerThread; ++i) {
        // Every thread's calls for one workload, and new workloads of its own so that the map
        // grows (and rehashes) while others read.
        std::fill(answers.begin(), answers.end(), 10);
        spread.recommend("shared", "pod-" + std::to_string(t) + "-" + std::to_string(i), hashes,
                         answers, percent, i, kWindowNs);
        if (i % 4 == 0) {
          spread.recommend("own-" + std::to_string(t) + "-" + std::to_string(i), "p", hashes,
                           answers, percent, i, kWindowNs);
        }
        spread.unconfirmed("shared", hashes, times, i, 0, kWindowNs);
        const std::uint32_t total = std::accumulate(times.begin(), times.end(), 0U);
        // This thread's own recommendations are in; the count never goes back.
        if (total < static_cast<std::uint32_t>(i + 1) || total < seen) torn.fetch_add(1);
        seen = total;
      }
    });
  }
  go.store(true);
  for (auto& t : threads) t.join();
  EXPECT_EQ(torn.load(), 0U);
  std::vector<std::uint32_t> times(hashes.size());
  spread.unconfirmed("shared", hashes, times, kCallsPerThread, 0, kWindowNs);
  EXPECT_EQ(std::accumulate(times.begin(), times.end(), 0U),
            static_cast<std::uint32_t>(kThreads * kCallsPerThread));
}

}  // namespace
}  // namespace netscore::extender
