// Each node's true traffic and its node_exporter counters in virtual time: figures worked out by
// hand from the rates and the moments they change.
#include "bench/closed_loop/virtual_time/node_counters.h"

#include <gtest/gtest.h>

#include <vector>

namespace netscore::sim {
namespace {

TEST(NodeCountersTest, ACounterIntegratesEachRateOverTheTimeItHeld) {
  NodeCounters nodes({100, 10}, {50, 5}, {1000, 0}, {0, 0}, -2, 60000);
  nodes.add(0, 1, 400, -20);  // node 0: 100 B/s for 3 s, then 500 B/s
  nodes.scrape(3, 3000);
  EXPECT_EQ(nodes.receive(), (std::vector<double>{500, 10}));
  EXPECT_EQ(nodes.transmit(), (std::vector<double>{30, 5}));
  ASSERT_EQ(nodes.receive_series()[0].v.size(), 1U);
  EXPECT_DOUBLE_EQ(nodes.receive_series()[0].v[0], 1000 + 100 * 3 + 500 * 2);
  EXPECT_DOUBLE_EQ(nodes.transmit_series()[0].v[0], 50 * 3 + 30 * 2);
  EXPECT_DOUBLE_EQ(nodes.receive_series()[1].v[0], 10 * 5);
  EXPECT_EQ(nodes.receive_series()[1].t_ms, (std::vector<std::int64_t>{3000}));
}

TEST(NodeCountersTest, ASeriesKeepsOnlyTheSamplesItsLongestReadNeeds) {
  NodeCounters nodes({100}, {0}, {0}, {0}, 0, 2000);
  for (int t = 1; t <= 5; ++t) nodes.scrape(t, t * 1000);
  // Within 2000 ms before the latest scrape: the one exactly 2000 ms before is gone too.
  EXPECT_EQ(nodes.receive_series()[0].t_ms, (std::vector<std::int64_t>{4000, 5000}));
  EXPECT_EQ(nodes.receive_series()[0].v, (std::vector<double>{400, 500}));
  EXPECT_EQ(nodes.transmit_series()[0].t_ms, (std::vector<std::int64_t>{4000, 5000}));
}

}  // namespace
}  // namespace netscore::sim
