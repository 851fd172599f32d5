#include "bench/prometheus_text/histogram.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/prometheus_text/exposition.h"

namespace netscore::prometheus_text {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// As kube-scheduler v1.26 exposes it: the profile label ends in "le" too.
const std::string kSchedulerMetrics = R"(# TYPE attempt_seconds histogram
attempt_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.001"} 0
attempt_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.002"} 10
attempt_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.004"} 90
attempt_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.008"} 100
attempt_seconds_bucket{profile="default-scheduler",result="scheduled",le="+Inf"} 100
attempt_seconds_bucket{profile="default-scheduler",result="error",le="0.001"} 0
attempt_seconds_bucket{profile="default-scheduler",result="error",le="0.002"} 0
attempt_seconds_bucket{profile="default-scheduler",result="error",le="0.004"} 0
attempt_seconds_bucket{profile="default-scheduler",result="error",le="0.008"} 0
attempt_seconds_bucket{profile="default-scheduler",result="error",le="+Inf"} 300
attempt_seconds_sum{profile="default-scheduler",result="scheduled"} 0.3
)";

TEST(HistogramBuckets, SumsTheMatchingSeriesPerBound) {
  const auto samples = parse(kSchedulerMetrics);
  const auto scheduled = buckets(samples, "attempt_seconds", {{"result", "scheduled"}});
  ASSERT_EQ(scheduled.size(), 5u);
  EXPECT_EQ(scheduled[2].upper_bound, 0.004);
  EXPECT_EQ(scheduled[2].cumulative, 90);
  EXPECT_EQ(scheduled[4].upper_bound, kInf);
  EXPECT_EQ(observations(scheduled), 100);
  EXPECT_EQ(observations(buckets(samples, "attempt_seconds")), 400);
  EXPECT_TRUE(buckets(samples, "attempt_seconds", {{"result", "unschedulable"}}).empty());
}

// Hand-computed: 100 observations, 10 up to 0.002, 80 in (0.002, 0.004], 10 in (0.004, 0.008].
TEST(HistogramQuantile, InterpolatesLinearlyWithinTheBucket) {
  const std::vector<Bucket> b{{0.001, 0}, {0.002, 10}, {0.004, 90}, {0.008, 100}, {kInf, 100}};
  // Rank 50 lies 40 of the 80 observations into (0.002, 0.004].
  EXPECT_DOUBLE_EQ(*quantile(b, 0.5), 0.003);
  // Rank 99 lies 9 of the 10 observations into (0.004, 0.008]: 0.004 + 0.004 x 0.9.
  EXPECT_DOUBLE_EQ(*quantile(b, 0.99), 0.0076);
  // Rank 5 lies half-way through the 10 observations of (0.001, 0.002].
  EXPECT_DOUBLE_EQ(*quantile(b, 0.05), 0.0015);
  // Rank 10 reaches the end of (0.001, 0.002] exactly.
  EXPECT_DOUBLE_EQ(*quantile(b, 0.1), 0.002);
}

TEST(HistogramQuantile, TheFirstBucketStartsAtZero) {
  const std::vector<Bucket> b{{0.01, 1}, {0.02, 4}, {kInf, 4}};
  // Rank 0.5 of the one observation up to 0.01.
  EXPECT_DOUBLE_EQ(*quantile(b, 0.125), 0.005);
  // Rank 2 lies a third into the three observations of (0.01, 0.02].
  EXPECT_NEAR(*quantile(b, 0.5), 0.01 + 0.01 / 3, 1e-15);
}

TEST(HistogramQuantile, TheInfBucketGivesTheHighestFiniteBound) {
  const std::vector<Bucket> b{{0.001, 0}, {0.002, 0}, {kInf, 5}};
  EXPECT_EQ(quantile(b, 0.5), 0.002);
}

TEST(HistogramQuantile, ANonPositiveFirstBoundIsItsOwnQuantile) {
  const std::vector<Bucket> b{{-1, 2}, {1, 4}, {kInf, 4}};
  EXPECT_EQ(quantile(b, 0.25), -1);
}

TEST(HistogramQuantile, NoAnswerWithoutObservationsOrAnInfBucket) {
  EXPECT_EQ(quantile(std::vector<Bucket>{{0.1, 0}, {kInf, 0}}, 0.5), std::nullopt);
  EXPECT_EQ(quantile(std::vector<Bucket>{{0.1, 1}, {0.2, 2}}, 0.5), std::nullopt);
  EXPECT_EQ(quantile(std::vector<Bucket>{{kInf, 3}}, 0.5), std::nullopt);
  EXPECT_EQ(quantile(std::vector<Bucket>{}, 0.5), std::nullopt);
}

TEST(HistogramQuantile, QOutsideTheUnitIntervalIsInfinite) {
  const std::vector<Bucket> b{{0.1, 1}, {kInf, 1}};
  EXPECT_EQ(quantile(b, -0.1), -kInf);
  EXPECT_EQ(quantile(b, 1.1), kInf);
}

}  // namespace
}  // namespace netscore::prometheus_text
