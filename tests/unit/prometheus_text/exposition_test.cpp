#include "bench/prometheus_text/exposition.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace netscore::prometheus_text {
namespace {

TEST(Exposition, ReadsNamesLabelsAndValuesAndSkipsComments) {
  const auto samples = parse(
      "# HELP up Whether the target is up.\n"
      "# TYPE up gauge\n"
      "up 1\n"
      "\n"
      "scheduler_scheduler_cache_size{type=\"nodes\"} 30 1700000000000\n"
      "http_requests_total{code=\"200\",path=\"/a \\\"b\\\"\\\\c\",} 1.5e3\r\n");
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0].name, "up");
  EXPECT_TRUE(samples[0].labels.empty());
  EXPECT_EQ(samples[0].value, 1);
  EXPECT_EQ(samples[1].labels, (Labels{{"type", "nodes"}}));
  EXPECT_EQ(samples[1].value, 30);
  EXPECT_EQ(samples[2].labels, (Labels{{"code", "200"}, {"path", "/a \"b\"\\c"}}));
  EXPECT_EQ(samples[2].value, 1500);
}

TEST(Exposition, SkipsMalformedLinesAndKeepsTheRest) {
  const auto samples = parse("broken{a=\"1\" 2\nno_value\nvalue_not_a_number abc\nok 2\n");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].name, "ok");
}

TEST(Exposition, ValueNeedsTheExactLabelSet) {
  const auto samples =
      parse("cache{type=\"nodes\"} 30\ncache{type=\"pods\",shard=\"1\"} 7\ncache 1\n");
  EXPECT_EQ(value(samples, "cache", {{"type", "nodes"}}), 30.0);
  EXPECT_EQ(value(samples, "cache"), 1.0);
  EXPECT_EQ(value(samples, "cache", {{"type", "pods"}}), std::nullopt);
  EXPECT_EQ(value(samples, "absent"), std::nullopt);
}

TEST(Exposition, AnotherLabelOrANameThatEndsTheSameIsAnotherSeries) {
  const auto samples = parse(
      "# HELP x\nscheduler_scheduler_cache_size{type=\"assumed_pods\"} 0\n"
      "scheduler_scheduler_cache_size{type=\"nodes\"} 30\nup 1\nnot_up 2\n");
  EXPECT_EQ(value(samples, "scheduler_scheduler_cache_size", {{"type", "nodes"}}), 30.0);
  EXPECT_EQ(value(samples, "up"), 1.0);
  EXPECT_EQ(value(samples, "scheduler_scheduler_cache_size"), std::nullopt);
  EXPECT_EQ(value(samples, "down"), std::nullopt);
}

TEST(Exposition, NumbersInGoSpelling) {
  EXPECT_EQ(number("+Inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(number("-Inf"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(number("NaN").value_or(0)));
  EXPECT_EQ(number("0.25"), 0.25);
  EXPECT_EQ(number("1x"), std::nullopt);
}

}  // namespace
}  // namespace netscore::prometheus_text
