#include "common/model/query_parts.h"

#include <gtest/gtest.h>

namespace netscore::model {
namespace {

TEST(QueryParts, TheTransmitValueIsAskedWhenTransmitIsScoredOnAFunctionOtherThanRate) {
  for (const auto function : {QueryFunction::sum_over_time, QueryFunction::increase}) {
    EXPECT_FALSE(asks_transmit_value(Direction::receive, function));
    EXPECT_TRUE(asks_transmit_value(Direction::transmit, function));
    EXPECT_TRUE(asks_transmit_value(Direction::max, function));
  }
}

TEST(QueryParts, TheRateFunctionsTransmitRateStandsForTheTransmitValue) {
  for (const auto direction : {Direction::receive, Direction::transmit, Direction::max})
    EXPECT_FALSE(asks_transmit_value(direction, QueryFunction::rate));
}

}  // namespace
}  // namespace netscore::model
