#include "bench/closed_loop/scale_metrics.h"

#include <unistd.h>

#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

// As kube-scheduler v1.26 exposes it: the profile label ends in "le" too.
const std::string kExposition = R"(# TYPE scheduler_scheduling_attempt_duration_seconds histogram
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.001"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.002"} 10
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.004"} 90
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.008"} 100
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="+Inf"} 100
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="error",le="0.001"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="error",le="0.002"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="error",le="0.004"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="error",le="0.008"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="error",le="+Inf"} 300
scheduler_pod_scheduling_duration_seconds_bucket{attempts="1",le="0.01"} 1
scheduler_pod_scheduling_duration_seconds_bucket{attempts="1",le="0.02"} 3
scheduler_pod_scheduling_duration_seconds_bucket{attempts="1",le="+Inf"} 3
scheduler_pod_scheduling_duration_seconds_bucket{attempts="2",le="0.01"} 0
scheduler_pod_scheduling_duration_seconds_bucket{attempts="2",le="0.02"} 1
scheduler_pod_scheduling_duration_seconds_bucket{attempts="2",le="+Inf"} 1
scheduler_scheduling_algorithm_duration_seconds_bucket{le="0.001"} 0
scheduler_scheduling_algorithm_duration_seconds_bucket{le="0.002"} 0
scheduler_scheduling_algorithm_duration_seconds_bucket{le="+Inf"} 5
)";

constexpr const char* kAttempt = "scheduler_scheduling_attempt_duration_seconds";

TEST(HistogramQuantile, InterpolatesWithinTheBucketOfTheMatchingSeries) {
  // Rank 50 of 100 lies 40 of the 80 observations into (0.002, 0.004].
  EXPECT_DOUBLE_EQ(*histogram_quantile(kExposition, kAttempt, 0.5, R"(result="scheduled")"), 0.003);
  // Rank 99: 9 of the 10 observations into (0.004, 0.008].
  EXPECT_DOUBLE_EQ(*histogram_quantile(kExposition, kAttempt, 0.99, R"(result="scheduled")"),
                   0.0076);
  EXPECT_DOUBLE_EQ(histogram_count(kExposition, kAttempt, R"(result="scheduled")"), 100);
}

TEST(HistogramQuantile, SumsTheMatchingSeries) {
  EXPECT_DOUBLE_EQ(histogram_count(kExposition, kAttempt), 400);
  // 4 observations, 1 up to 0.01: rank 2 lies a third into the three in (0.01, 0.02].
  EXPECT_NEAR(*histogram_quantile(kExposition, "scheduler_pod_scheduling_duration_seconds", 0.5),
              0.01 + 0.01 / 3, 1e-12);
}

TEST(HistogramQuantile, TheInfBucketGivesTheHighestFiniteBound) {
  EXPECT_DOUBLE_EQ(
      *histogram_quantile(kExposition, "scheduler_scheduling_algorithm_duration_seconds", 0.5),
      0.002);
}

TEST(HistogramQuantile, NothingObservedIsNoQuantile) {
  EXPECT_EQ(histogram_quantile(kExposition, kAttempt, 0.5, R"(result="unschedulable")"),
            std::nullopt);
  EXPECT_EQ(histogram_quantile(kExposition, "scheduler_absent_seconds", 0.5), std::nullopt);
}

TEST(ProcessUsage, ReadsThisProcess) {
  EXPECT_GE(process_cpu_s(::getpid()).value_or(-1), 0);
  EXPECT_GT(process_peak_rss_kb(::getpid()).value_or(0), 0);
  EXPECT_EQ(child_by_comm("no-such-child"), std::nullopt);
}

}  // namespace
}  // namespace netscore::sim
