// BurstSpread is shared by every server thread: recommendations made from several threads at once
// must all be made and remembered (ThreadSanitizer, which runs this, sees the memory itself).
#include "extender/scheduler/burst_spread.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace netscore::extender {
namespace {

constexpr std::int64_t kWindowNs = std::int64_t{3600} * 1'000'000'000;
constexpr int kThreads = 4;
constexpr int kCallsPerThread = 2000;
constexpr std::size_t kNodes = 8;

model::NodeScore node() {
  return {{.corrected_raw_score = 1000, .flags = model::kEntryValid}, true};
}

TEST(BurstSpreadStress, ConcurrentRecommendationsAreAllCounted) {
  BurstSpread spread;
  const std::array<model::NodeScore, kNodes> nodes{node(), node(), node(), node(),
                                                   node(), node(), node(), node()};
  const std::array<std::uint64_t, kNodes> hashes{1, 2, 3, 4, 5, 6, 7, 8};
  model::SnapshotMeta meta{};
  meta.flags = model::kSnapshotCorrected;
  meta.pod_price = 1;
  const model::TableRead table{.fresh = true, .meta = meta, .nodes = nodes, .name_hashes = hashes};
  const model::PrioritizeSettings settings{
      .normalisation = model::Normalisation::request, .neutral = 5, .spread_window_ns = kWindowNs};
  std::atomic<bool> go{false};
  std::atomic<std::uint64_t> lost{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      std::vector<std::int64_t> scores(kNodes);
      std::vector<std::int16_t> percent(kNodes);
      for (int i = 0; i < kCallsPerThread; ++i) {
        const std::string uid = "pod-" + std::to_string(t) + "-" + std::to_string(i);
        const std::string owner = i % 2 == 0 ? "shared" : "";
        if (spread.prioritize(settings, table, {.owner = owner, .uid = uid, .rate = 0}, i, scores,
                              percent) >= kNodes)
          lost.fetch_add(1);
      }
    });
  }
  go.store(true);
  for (auto& t : threads) t.join();
  EXPECT_EQ(lost.load(), 0U);
  EXPECT_EQ(spread.remembered(), static_cast<std::size_t>(kThreads * kCallsPerThread));
}

}  // namespace
}  // namespace netscore::extender
