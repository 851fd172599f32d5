#include "bench/closed_loop/reports/balance_metrics.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

// Three nodes, one second apart:
//   {1, 2, 3}: mean 2, max/mean 1.5, sd sqrt(2/3), none above 1.5 x 2 = 3 (strictly)
//   {2, 2, 2}: max/mean 1, cv 0
//   {0, 0, 6}: mean 2, max/mean 3, sd sqrt(8), one node above 3
//   {0, 0, 0}: no mean: covered, not in the ratios
BalanceRecorder three_nodes(double hot_factor = 1.5) {
  BalanceRecorder recorder(1, hot_factor);
  for (const auto& rates :
       std::vector<std::vector<double>>{{1, 2, 3}, {2, 2, 2}, {0, 0, 6}, {0, 0, 0}}) {
    recorder.add(rates);
  }
  return recorder;
}

TEST(BalanceMetricsTest, TimeAveragesOfThreeNodes) {
  const auto m = three_nodes().result();
  EXPECT_DOUBLE_EQ(m.seconds, 4);
  EXPECT_DOUBLE_EQ(m.peak_to_mean, (1.5 + 1 + 3) / 3);
  EXPECT_DOUBLE_EQ(m.cv, (std::sqrt(2.0 / 3) / 2 + 0 + std::sqrt(8.0) / 2) / 3);
  EXPECT_DOUBLE_EQ(m.hot_node_seconds, 1);
  // Nearest rank floor(0.99 x 2) = 1 of {1, 1.5, 3}.
  EXPECT_DOUBLE_EQ(m.p99_peak_to_mean, 1.5);
}

TEST(BalanceMetricsTest, HotNodesAreCountedAgainstTheFactorTimesTheMean) {
  // Factor 1.2: 3 > 2.4 in the first instant, 6 > 2.4 in the third.
  EXPECT_DOUBLE_EQ(three_nodes(1.2).result().hot_node_seconds, 2);
  BalanceRecorder half_seconds(0.5);
  half_seconds.add(std::vector<double>{0, 0, 6});
  half_seconds.add(std::vector<double>{0, 5, 6});  // mean 11/3: 6 > 5.5, 5 < 5.5
  EXPECT_DOUBLE_EQ(half_seconds.result().hot_node_seconds, 1);
  EXPECT_DOUBLE_EQ(half_seconds.result().seconds, 1);
}

TEST(BalanceMetricsTest, P99SeesSpikesInMoreThanOnePercentOfTheTime) {
  BalanceRecorder one(1), two(1);
  for (int i = 0; i < 100; ++i) {
    one.add(i == 50 ? std::vector<double>{0, 0, 6} : std::vector<double>{1, 1, 1});
    two.add(i == 50 || i == 70 ? std::vector<double>{0, 0, 6} : std::vector<double>{1, 1, 1});
  }
  // Rank floor(0.99 x 99) = 98 of the sorted 100.
  EXPECT_DOUBLE_EQ(one.result().p99_peak_to_mean, 1);
  EXPECT_DOUBLE_EQ(two.result().p99_peak_to_mean, 3);
  EXPECT_DOUBLE_EQ(two.result().peak_to_mean, (98 + 2 * 3) / 100.0);
}

TEST(BalanceMetricsTest, PeakToMeanSeriesIsATrailingMovingAverage) {
  const auto recorder = three_nodes();
  using Points = std::vector<std::pair<double, double>>;
  // Window (t - 2, t]: {1.5}, {1.5, 1}, {1, 3}; the instant without a mean is left out.
  EXPECT_EQ(recorder.peak_to_mean_series(2), (Points{{0, 1.5}, {1, 1.25}, {2, 2}}));
  EXPECT_EQ(recorder.peak_to_mean_series(0), (Points{{0, 1.5}, {1, 1}, {2, 3}}));
}

TEST(BalanceMetricsTest, EmptyRecorderGivesZeros) {
  const auto m = BalanceRecorder(1).result();
  EXPECT_EQ(m.seconds, 0);
  EXPECT_EQ(m.peak_to_mean, 0);
  EXPECT_EQ(m.p99_peak_to_mean, 0);
  EXPECT_TRUE(BalanceRecorder(1).peak_to_mean_series(10).empty());
}

// Two nodes with speeds 10 and 100 and one without, half a second apart. Utilisations (receive,
// transmit):
//   node 0 (10): 0.5, 0.9 | 0.8, 1.2
//   node 1 (100): 0.85, 0.1 | 0.2, 0.3
//   node 2: no speed, whatever its rates
// First instant: 0.9 and 0.85 above 0.8, none above 1, peak 0.9. Second: 1.2 above both (0.8
// itself is not above), peak 1.2.
TEST(BalanceMetricsTest, HotLinksAreCountedPerNodeAndDirectionOnTheirUtilisation) {
  BalanceRecorder recorder(0.5, 1.5, 0.8);
  const std::vector<double> speed{10, 100, 0};
  recorder.add_links(std::vector<double>{5, 85, 1e9}, std::vector<double>{9, 10, 1e9}, speed);
  recorder.add_links(std::vector<double>{8, 20, 1e9}, std::vector<double>{12, 30, 1e9}, speed);
  const auto m = recorder.result();
  EXPECT_DOUBLE_EQ(m.hot_link_seconds, 0.5 * 2 + 0.5 * 1);
  EXPECT_DOUBLE_EQ(m.saturated_link_seconds, 0.5);
  EXPECT_DOUBLE_EQ(m.mean_peak_utilisation, (0.9 + 1.2) / 2);
  // Rank floor(0.99 x 1) = 0 of {0.9, 1.2}.
  EXPECT_DOUBLE_EQ(m.p99_peak_utilisation, 0.9);
  EXPECT_DOUBLE_EQ(m.max_utilisation, 1.2);
  EXPECT_EQ(m.seconds, 0) << "links do not count as instants of add()";

  BalanceRecorder lower(1, 1.5, 0.3);
  lower.add_links(std::vector<double>{5, 85, 0}, std::vector<double>{9, 10, 0}, speed);
  EXPECT_DOUBLE_EQ(lower.result().hot_link_seconds, 3) << "0.5, 0.9 and 0.85; 0.1 is not above";
}

TEST(BalanceMetricsTest, PodsPerNodeAreAveragedOnTheSlowerAndTheFastestNodes) {
  BalanceRecorder recorder(1);
  const std::vector<double> speed{10, 100, 50, 100};
  recorder.add_pods(std::vector<unsigned>{1, 6, 3, 8}, speed);
  recorder.add_pods(std::vector<unsigned>{3, 2, 5, 4}, speed);
  const auto m = recorder.result();
  EXPECT_DOUBLE_EQ(m.pods_per_slow_node, (1 + 3 + 3 + 5) / 4.0);
  EXPECT_DOUBLE_EQ(m.pods_per_fast_node, (6 + 8 + 2 + 4) / 4.0);

  BalanceRecorder equal(1);
  equal.add_pods(std::vector<unsigned>{2, 4}, std::vector<double>{0, 0});
  EXPECT_EQ(equal.result().pods_per_slow_node, 0) << "no node is slower than the fastest";
  EXPECT_DOUBLE_EQ(equal.result().pods_per_fast_node, 3);
}

TEST(BalanceMetricsTest, NoSpeedsNoLinkFigures) {
  BalanceRecorder recorder(1);
  recorder.add_links(std::vector<double>{5}, std::vector<double>{5}, std::vector<double>{0});
  const auto m = recorder.result();
  EXPECT_EQ(m.hot_link_seconds, 0);
  EXPECT_EQ(m.mean_peak_utilisation, 0);
  EXPECT_EQ(m.max_utilisation, 0);
}

TEST(BalanceMetricsTest, BurstSpreadCountsTheMostPodsOfABurstOnOneNode) {
  Trace trace;
  using Kind = TraceEvent::Kind;
  // Bursts by pod: 0, 0, 0 on nodes 0, 0, 1: 2; 1 alone: not a burst; 2, 2 on nodes 1, 2: 1;
  // 3, 3 never placed: left out; 4, 4 one placed, on node 0: 1; 5 created one by one on nodes
  // 2, 1, 2: 2; pod 13 created before t = 0 though placed with burst 5: not in a burst.
  const std::vector<std::uint32_t> burst_of{0, 0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, kInitialBurst};
  trace.pods.resize(burst_of.size());
  for (std::uint32_t id = 0; id < burst_of.size(); ++id) {
    trace.pods[id].id = id;
    trace.pods[id].burst = burst_of[id];
  }
  trace.events = {
      {0, Kind::create, {0, 1, 2}}, {1, Kind::create, {3}},    {2, Kind::remove, {0}},
      {3, Kind::create, {4, 5}},    {4, Kind::create, {6, 7}}, {5, Kind::create, {8, 9}},
      {6, Kind::create, {10}},      {6.5, Kind::create, {11}}, {7, Kind::create, {12}}};
  const std::vector<int> node_of_pod{0, 0, 1, 2, 1, 2, -1, -1, -1, 0, 2, 1, 2, 2};
  const auto spread = burst_spread(trace, node_of_pod);
  EXPECT_EQ(spread.bursts, 4U);
  EXPECT_EQ(spread.max_on_one_node, 2U);
  EXPECT_DOUBLE_EQ(spread.mean_max_on_one_node, 6.0 / 4);

  EXPECT_EQ(burst_spread(trace, std::vector<int>(14, 3)).max_on_one_node, 3U);
  EXPECT_EQ(burst_spread(Trace{}, {}).bursts, 0U);
}

}  // namespace
}  // namespace netscore::sim
