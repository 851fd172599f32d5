#include "bench/closed_loop/reports/eviction_log.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

// Window 40 s, cycles every 40 s, a change reaches the table 2 s after it at the soonest.
EvictionLog window_40() {
  return EvictionLog(40, 40, 2);
}

TEST(EvictionLog, NothingEvictedIsAllZero) {
  const auto s = window_40().summary();
  EXPECT_EQ(s.evictions, 0U);
  EXPECT_EQ(s.cycles, 0U);
  EXPECT_EQ(s.max_per_node_per_cycle, 0U);
  EXPECT_EQ(s.mean_time_to_cool_s, 0);
}

TEST(EvictionLog, GroupsEvictionsIntoCyclesAndCountsPerNode) {
  EvictionLog log = window_40();
  log.evicted(10, 1, 100, 3);
  log.evicted(11, 2, 101, 4);
  log.evicted(12, 3, 102, 3);  // node 3's second in the cycle starting at 10
  log.evicted(50, 4, 103, 3);  // a new cycle
  const auto s = log.summary();
  EXPECT_EQ(s.evictions, 4U);
  EXPECT_EQ(s.cycles, 2U);
  EXPECT_EQ(s.max_per_node_per_cycle, 2U);
}

TEST(EvictionLog, ReEvictionIsTheSameWorkloadWithinTheWindow) {
  EvictionLog log = window_40();
  log.evicted(10, 1, 7, 0);
  log.evicted(45, 2, 7, 1);   // 35 s later: within
  log.evicted(90, 3, 7, 2);   // 45 s after the previous: outside
  log.evicted(95, 4, 8, 2);   // another workload
  log.evicted(100, 4, 8, 3);  // the same pod again, 5 s later
  EXPECT_EQ(log.summary().re_evictions, 2U);
  EXPECT_EQ(log.summary().pod_re_evictions, 1U);
}

TEST(EvictionLog, LandingsBackAndOnHotNodes) {
  EvictionLog log = window_40();
  log.evicted(10, 1, 7, 0);
  log.evicted(10, 2, 8, 1);
  log.evicted(10, 3, 9, 2);
  log.landed(11, 1, 0, true);   // back on the hot node it left
  log.landed(11, 2, 5, true);   // elsewhere, hot
  log.landed(11, 3, 6, false);  // elsewhere, cool
  log.landed(11, 4, 0, true);   // never evicted: ignored
  log.landed(12, 1, 0, true);   // already landed: ignored
  const auto s = log.summary();
  EXPECT_EQ(s.landed, 3U);
  EXPECT_EQ(s.landed_back, 1U);
  EXPECT_EQ(s.landed_back_hot, 1U);
  EXPECT_EQ(s.landed_hot, 2U);
}

TEST(EvictionLog, LandingsOnNodesHotTooRecentlyToBeSeenAreCountedApart) {
  EvictionLog log = window_40();
  for (std::uint32_t pod = 1; pod <= 4; ++pod) log.evicted(10, pod, pod, 0);
  // Node 1 hot since 5, node 2 since 9, node 3 since 10 after a cool sample at 9.
  log.sample(5, std::vector<bool>{false, true, false, false}, 0);
  log.sample(9, std::vector<bool>{false, true, true, false}, 0);
  log.sample(10, std::vector<bool>{false, true, true, true}, 0);
  log.landed(10.5, 1, 1, true);  // hot 5.5 s: the table could show it
  log.landed(10.5, 2, 2, true);  // hot 1.5 s: too recent
  log.landed(12, 3, 3, true);    // hot 2 s: the unseen time has passed
  log.landed(12, 4, 0, true);    // not hot at any sample: too recent
  const auto s = log.summary();
  EXPECT_EQ(s.landed_hot, 4U);
  EXPECT_EQ(s.landed_hot_unseen, 2U);
  EXPECT_NE(describe(s).find("4 on a hot node (2 hot for less than a scrape and a refresh)"),
            std::string::npos);
}

TEST(EvictionLog, ANodeThatCoolsStartsItsNextSpellHotAfresh) {
  EvictionLog log = window_40();
  log.evicted(10, 1, 1, 0);
  log.sample(1, std::vector<bool>{true}, 0);
  log.sample(9, std::vector<bool>{false}, 0);
  log.sample(10, std::vector<bool>{true}, 0);
  log.landed(11, 1, 0, true);
  EXPECT_EQ(log.summary().landed_hot_unseen, 1U);
}

TEST(EvictionLog, TimeToCoolFromTheEvictionToTheFirstCoolSample) {
  EvictionLog log = window_40();
  log.evicted(10, 1, 7, 0);
  log.evicted(10, 2, 8, 1);
  const std::vector<bool> both_hot{true, true}, first_cool{false, true};
  log.sample(5, std::vector<bool>{false, false}, 0);  // before the evictions: not counted
  log.sample(12, both_hot, 0);
  log.sample(16, first_cool, 1);
  log.sample(30, first_cool, 1);
  const auto s = log.summary();
  // Node 0 cooled 6 s after; node 1 is still hot at the last sample, 20 s after.
  EXPECT_DOUBLE_EQ(s.mean_time_to_cool_s, (6.0 + 20.0) / 2);
  EXPECT_EQ(s.never_cooled, 1U);
  // One node hot wherever the pods ran over 12-16 and 16-30.
  EXPECT_DOUBLE_EQ(s.unavoidable_hot_node_s, 18);
  EXPECT_NE(describe(s).find("2 evictions in 1 cycles"), std::string::npos);
}

TEST(HotNodes, AboveTheFactorTimesTheMeanReceiveRate) {
  // Mean 4: hot above 6 at 1.5.
  EXPECT_EQ(hot_nodes({1, 2, 6, 7}, 1.5), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(hot_nodes({0, 0}, 1.5), (std::vector<bool>{false, false}));
  EXPECT_TRUE(hot_nodes({}, 1.5).empty());
}

TEST(UnavoidablyHotNodes, EachPodOverTheLineOnTheQuietestNodeMakesOne) {
  // Nodes at a mean of 10, the line 15 at 1.5; the quietest background 2: pods of 14 and 20 are
  // over the line on it, 13 is not.
  const std::vector<double> nodes{5, 10, 15, 10}, background{4, 2, 3, 6};
  EXPECT_EQ(unavoidably_hot_nodes(nodes, {13, 14, 20, 1}, background, 1.5), 2u);
  EXPECT_EQ(unavoidably_hot_nodes({10}, {14, 20}, {2}, 1.5), 1u);  // at most every node
  EXPECT_EQ(unavoidably_hot_nodes(nodes, {}, background, 1.5), 0u);
}

}  // namespace
}  // namespace netscore::sim
