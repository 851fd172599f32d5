#include "extender/scheduler/pod_rate.h"

#include <gtest/gtest.h>

#include <vector>

namespace netscore::extender {
namespace {

TEST(PodRateTest, APodsRateComesFromItsAnnotationsInTheDirection) {
  const std::vector<KeyValue> both{{"netscore.io/expected-receive-rate", "10Mi"},
                                   {"netscore.io/expected-transmit-rate", "1k"}};
  EXPECT_EQ(pod_rate_of(both, Direction::receive), 10.0 * 1024 * 1024);
  EXPECT_EQ(pod_rate_of(both, Direction::transmit), 1000.0);
  EXPECT_EQ(pod_rate_of(both, Direction::max), 10.0 * 1024 * 1024);
  const std::vector<KeyValue> transmit_only{{"netscore.io/expected-transmit-rate", "2k"}};
  EXPECT_EQ(pod_rate_of(transmit_only, Direction::max), 2000.0);
  EXPECT_EQ(pod_rate_of(transmit_only, Direction::receive), 0.0);
  const std::vector<KeyValue> malformed{{"netscore.io/expected-receive-rate", "lots"}};
  EXPECT_EQ(pod_rate_of(malformed, Direction::receive), 0.0);
  EXPECT_EQ(pod_rate_of({}, Direction::max), 0.0);
}

}  // namespace
}  // namespace netscore::extender
