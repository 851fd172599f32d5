#include "extender/views/metrics.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace netscore::extender {
namespace {

constexpr MetricInfo kUp{"test_up", "1 when up.", MetricType::gauge};
constexpr MetricInfo kHits{"test_hits_total", "Hits, by path.", MetricType::counter};
constexpr MetricInfo kLatency{"test_seconds", "Latency.", MetricType::histogram};

std::string text(const MetricFamilies& families) {
  std::string out;
  write_prometheus_text(families, out);
  return out;
}

TEST(MetricsTest, WritesHelpTypeAndSamplesInOrder) {
  MetricFamilies families;
  families.add(kUp, 1.0);
  MetricFamily& hits = families.add(kHits);
  hits.samples.push_back({{}, {{"path", "/a"}, {"code", "200"}}, std::uint64_t{3}});
  EXPECT_EQ(text(families),
            "# HELP test_up 1 when up.\n# TYPE test_up gauge\ntest_up 1\n"
            "# HELP test_hits_total Hits, by path.\n# TYPE test_hits_total counter\n"
            "test_hits_total{path=\"/a\",code=\"200\"} 3\n");
}

TEST(MetricsTest, FamilyWithoutSamplesKeepsItsHeader) {
  MetricFamilies families;
  families.add(kHits);
  EXPECT_EQ(text(families),
            "# HELP test_hits_total Hits, by path.\n# TYPE test_hits_total counter\n");
}

TEST(MetricsTest, IntegersStayIntegersAndDoublesTakeTheirShortestForm) {
  MetricFamilies families;
  families.add(kUp, std::uint64_t{10'000'000'000'000'000'000ULL});
  families.add(kUp, 0.1 + 0.2);
  families.add(kUp, 5e-6);
  const std::string out = text(families);
  EXPECT_NE(out.find("\ntest_up 10000000000000000000\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\ntest_up 0.30000000000000004\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\ntest_up 5e-06\n"), std::string::npos) << out;
}

TEST(MetricsTest, EscapesLabelValues) {
  MetricFamilies families;
  families.add(kHits).samples.push_back({{}, {{"path", "a\"b\\c\nd"}}, std::uint64_t{1}});
  EXPECT_NE(text(families).find("test_hits_total{path=\"a\\\"b\\\\c\\nd\"} 1\n"),
            std::string::npos);
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  MetricFamilies families;
  constexpr std::array<double, 2> kBounds = {0.5, 1.0};
  constexpr std::array<std::uint64_t, 3> kCounts = {1, 0, 2};
  add_histogram(families.add(kLatency), {{"verb", "x"}}, kBounds, kCounts, 7.25);
  EXPECT_EQ(text(families),
            "# HELP test_seconds Latency.\n# TYPE test_seconds histogram\n"
            "test_seconds_bucket{verb=\"x\",le=\"0.5\"} 1\n"
            "test_seconds_bucket{verb=\"x\",le=\"1\"} 1\n"
            "test_seconds_bucket{verb=\"x\",le=\"+Inf\"} 3\n"
            "test_seconds_sum{verb=\"x\"} 7.25\n"
            "test_seconds_count{verb=\"x\"} 3\n");
}

}  // namespace
}  // namespace netscore::extender
