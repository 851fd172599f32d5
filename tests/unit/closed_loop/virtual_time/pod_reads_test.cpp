// The collector's per-pod reads in virtual time, handed to the ledger: which refresh reads what,
// and the price a new pod gets. A pod placed at B starts its traffic (1000 B/s received) at
// B + 1 s and is scraped every second; lag 1 s, window 20 s. Figures worked out by hand.
#include "bench/closed_loop/virtual_time/pod_reads.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "common/model/placement_ledger.h"

namespace netscore::sim {
namespace {

constexpr std::int64_t kB = 1'700'000'000'000;
constexpr model::LoadWindow kWindow{.lag_ms = 1000, .window_ms = 20000};

struct OnePod {
  model::PlacementLedger ledger;
  PodCounters counters{20000};

  OnePod() {
    ledger.upsert_node({.name = "n1"});
    ledger.upsert_pod({.uid = "u1", .node = "n1", .workload = "ci/label/p", .name = "ci/r1"}, kB);
    counters.start(0, "ci/r1", kB + 1000, 1000, 0);
  }
  // Every second from B to `end`: the scrape (the pod's from B + 1 s on), then the refresh, then
  // `check`.
  void run(PodReads& reads, std::int64_t end, const std::function<void(std::int64_t)>& check = {}) {
    for (std::int64_t t = kB; t <= end; t += 1000) {
      if (t >= kB + 1000) counters.scrape(t);
      reads.refresh(counters, ledger, t);
      if (check) check(t);
    }
  }
  model::NodeLoad load_at(std::int64_t now) {
    model::LoadWindow at = kWindow;
    at.now_ms = now;
    const auto loads = ledger.loads(at);
    EXPECT_EQ(loads.size(), 1U);
    return loads.empty() ? model::NodeLoad{} : loads[0];
  }
};

PodReads reads(bool recent) {
  return PodReads(
      {.interval_ms = 4000, .window = kWindow, .recent = recent, .recent_range_ms = 4000},
      [](std::uint32_t) { return kB; });
}

TEST(PodReadsTest, AFullReadEveryIntervalPricesAPodByItsOwnRateOnceAFifthIsHeld) {
  OnePod pod;
  PodReads r = reads(false);
  pod.run(r, kB + 8000, [&](std::int64_t t) {
    // Read at B (no series yet), B + 4 s (held 0.15: too little to tell), B + 8 s.
    const bool measured = t >= kB + 8000;
    EXPECT_EQ(pod.load_at(t).priced_receive.measurement, measured ? 1U : 0U) << t - kB;
  });
  EXPECT_EQ(r.full_reads(), 3U);
  EXPECT_EQ(r.recent_reads(), 0U);
  // At B + 8 s: 7000 B over the 20 s window is 350 B/s, held (8 - 1) / 20: 1000 B/s; the window
  // misses 0.65 of it.
  EXPECT_NEAR(pod.load_at(kB + 8000).pending_known, 0.65 * 1000, 1e-3);
}

TEST(PodReadsTest, RecentReadsPriceANewPodAtTheFirstRefreshItCountsAt) {
  OnePod pod;
  PodReads r = reads(true);
  pod.run(r, kB + 6000);
  EXPECT_EQ(r.full_reads(), 2U);  // B, B + 4 s
  EXPECT_EQ(r.recent_reads(), 7U);
  // At B + 6 s the full reads have not priced it (the next is at B + 8 s); over the last 4 s it
  // received 4000 B: 1000 B/s, held 0.25, so 0.75 x 1000 missing.
  const model::NodeLoad load = pod.load_at(kB + 6000);
  EXPECT_EQ(load.priced_receive.measurement, 1U);
  EXPECT_NEAR(load.pending_known, 750, 1e-3);
}

TEST(PodReadsTest, BetweenFullReadsTheRecentReadKeepsTheFullReadsWholePods) {
  OnePod pod;
  PodReads r({.interval_ms = 4000, .window = kWindow, .recent = true, .recent_range_ms = 4000},
             [](std::uint32_t p) { return p == 0 ? kB : kB + 29000; });
  // A second pod of the workload, placed at B + 29 s, not running yet.
  pod.ledger.upsert_pod({.uid = "u2", .node = "n1", .workload = "ci/label/p", .name = "ci/r2"},
                        kB + 29000);
  pod.run(r, kB + 30000);
  EXPECT_EQ(r.full_reads(), 8U);  // the last at B + 28 s: 20000 B over 20 s, held whole
  // At B + 30 s the recent read asks only pods placed after B + 7 s; the first pod keeps its
  // 1000 B/s, and the second, all of its traffic missing, is priced at its workload's mean.
  const model::NodeLoad load = pod.load_at(kB + 30000);
  EXPECT_EQ(load.priced_receive.workload_measurement, 1U);
  EXPECT_NEAR(load.pending_known, 1000, 1e-3);
}

}  // namespace
}  // namespace netscore::sim
