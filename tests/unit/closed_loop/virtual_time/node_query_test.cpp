// The batch query's answer per node in virtual time, worked out by hand from the samples.
#include "bench/closed_loop/virtual_time/node_query.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace netscore::sim {
namespace {

// Two nodes over [0 s, 10 s]: "a" receives 100 B/s and transmits 10 B/s, sampled at 0, 5, 10 s;
// "b" has no sample in the window, so no answer.
struct TwoNodes {
  std::vector<std::string> names{"a", "b"};
  std::vector<Series> receive{{.t_ms = {0, 5000, 10000}, .v = {0, 500, 1000}},
                              {.t_ms = {-60000}, .v = {7}}};
  std::vector<Series> transmit{{.t_ms = {0, 5000, 10000}, .v = {0, 50, 100}},
                               {.t_ms = {-60000}, .v = {7}}};
  std::vector<double> speed{1e6, 0};
  NodeSeries series() const {
    return {.names = names, .receive = receive, .transmit = transmit, .speed = speed};
  }
};

TEST(NodeQueryTest, ARateScoreIsAlsoTheRateAndTheTransmitRateItsTransmitValue) {
  const TwoNodes nodes;
  QueryConfig query;
  query.function = QueryFunction::rate;
  const auto samples = answer_node_query(query, nodes.series(), 10000, 10000);
  ASSERT_EQ(samples.size(), 1U);
  EXPECT_EQ(samples[0].node, "a");
  EXPECT_DOUBLE_EQ(samples[0].value, 100);
  EXPECT_DOUBLE_EQ(samples[0].rate, 100);
  EXPECT_TRUE(samples[0].rate_valid);
  EXPECT_DOUBLE_EQ(samples[0].transmit_rate, 10);
  EXPECT_TRUE(samples[0].transmit_value_valid);
  EXPECT_DOUBLE_EQ(samples[0].transmit_value, 10);
  EXPECT_EQ(samples[0].speed, 1e6);
}

TEST(NodeQueryTest, ASumOverTimeScoreAsksTheTransmitValueOnlyBeyondReceive) {
  const TwoNodes nodes;
  QueryConfig query;
  query.function = QueryFunction::sum_over_time;
  const auto receive_only = answer_node_query(query, nodes.series(), 10000, 10000);
  ASSERT_EQ(receive_only.size(), 1U);
  EXPECT_DOUBLE_EQ(receive_only[0].value, 1500);  // 0 + 500 + 1000
  EXPECT_DOUBLE_EQ(receive_only[0].rate, 100);
  EXPECT_FALSE(receive_only[0].transmit_value_valid);
  EXPECT_TRUE(receive_only[0].transmit_rate_valid);
  query.direction = Direction::max;
  const auto both = answer_node_query(query, nodes.series(), 10000, 10000);
  ASSERT_EQ(both.size(), 1U);
  EXPECT_TRUE(both[0].transmit_value_valid);
  EXPECT_DOUBLE_EQ(both[0].transmit_value, 150);  // 0 + 50 + 100
}

}  // namespace
}  // namespace netscore::sim
