#include "bench/closed_loop/scale/scale_metrics.h"

#include <unistd.h>

#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

TEST(ProcessUsage, ReadsThisProcess) {
  EXPECT_GE(process_cpu_s(::getpid()).value_or(-1), 0);
  EXPECT_GT(process_peak_rss_kb(::getpid()).value_or(0), 0);
  EXPECT_EQ(child_by_comm("no-such-child"), std::nullopt);
}

}  // namespace
}  // namespace netscore::sim
