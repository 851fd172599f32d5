// Expected values worked out by hand from Prometheus 2.42's extrapolatedRate: the window
// [eval - range, eval], result = last - first plus the value before every reset, extrapolation
// by the gap to an edge when it is below 1.1 x the average interval (else half an interval),
// the gap to the start cut at the counter's extrapolated zero point.
#include "bench/closed_loop/virtual_time/promql.h"

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

constexpr std::int64_t s = 1000;  // ms

Series series(std::vector<std::int64_t> t_s, std::vector<double> v) {
  Series out;
  for (const auto t : t_s) out.t_ms.push_back(t * s);
  out.v = std::move(v);
  return out;
}

TEST(PromqlTest, GapsToBothEdgesBelowTheThresholdAreExtrapolated) {
  const auto c = series({10, 20, 30, 40, 50, 60}, {100, 110, 120, 130, 140, 150});
  // Window [5 s, 65 s]: 50 over 50 s, 5 s more on each side: 50 x 60 / 50.
  EXPECT_DOUBLE_EQ(*increase(c, 65 * s, 60 * s), 60);
  EXPECT_DOUBLE_EQ(*rate(c, 65 * s, 60 * s), 1);
}

TEST(PromqlTest, FarEdgesGetHalfAnIntervalAndTheStartStopsAtTheZeroPoint) {
  const auto c = series({30, 40, 50}, {10, 20, 30});
  // Window [0, 100]: 20 over 20 s. Start gap 30 s, but the counter was 0 ten seconds before
  // its first sample (10 at a slope of 1/s): 10 < 11, so +10. End gap 50 >= 11: +5.
  EXPECT_DOUBLE_EQ(*increase(c, 100 * s, 100 * s), 35);
  EXPECT_DOUBLE_EQ(*rate(c, 100 * s, 100 * s), 0.35);
}

TEST(PromqlTest, TheZeroPointCutsAGapBelowTheThreshold) {
  const auto c = series({10, 20, 30}, {1, 11, 21});
  // Window [0, 30]: 20 over 20 s, start gap 10 < 11 but the zero point is 1 s before: 20 x 21/20.
  EXPECT_DOUBLE_EQ(*increase(c, 30 * s, 30 * s), 21);
  // A counter starting at 0 has its zero point on its first sample: no extrapolation back.
  EXPECT_DOUBLE_EQ(*increase(series({10, 20, 30}, {0, 10, 20}), 30 * s, 30 * s), 20);
}

TEST(PromqlTest, TheThresholdIsStrict) {
  const auto c = series({20, 30, 40}, {100, 110, 120});
  // Average interval 10 s: a start gap of 10.999 s is extrapolated, 11.001 s gets 5 s.
  EXPECT_DOUBLE_EQ(*increase(c, 40 * s, 30999), 20 * (20 + 10.999) / 20);
  EXPECT_DOUBLE_EQ(*increase(c, 40 * s, 31001), 20 * (20 + 5.0) / 20);
  EXPECT_DOUBLE_EQ(*rate(c, 40 * s, 31001), 20 * (20 + 5.0) / 20 / 31.001);
}

TEST(PromqlTest, ACounterResetAddsTheValueBeforeIt) {
  const auto c = series({0, 10, 20, 30}, {5, 15, 3, 13});
  // Window [0, 30] holds the sample on its left edge: 13 - 5 + 15 = 23 over exactly the window.
  EXPECT_DOUBLE_EQ(*increase(c, 30 * s, 30 * s), 23);
  EXPECT_DOUBLE_EQ(*rate(c, 30 * s, 30 * s), 23.0 / 30);
  // One millisecond less and the 5 at 0 is out: 13 - 15 + 15 = 13 over 20 s, start gap 9.999 s
  // (the zero point 20 x 15/13 s back is farther).
  EXPECT_DOUBLE_EQ(*increase(c, 30 * s, 30 * s - 1), 13 * 29.999 / 20);
  EXPECT_DOUBLE_EQ(*rate(c, 30 * s, 30 * s - 1), 13 * 29.999 / 20 / 29.999);
}

TEST(PromqlTest, SamplesOnBothEdgesAreIn) {
  const auto c = series({0, 10, 20}, {0, 10, 20});
  EXPECT_DOUBLE_EQ(*sum_over_time(c, 20 * s, 20 * s), 30);
  EXPECT_DOUBLE_EQ(*sum_over_time(c, 20 * s - 1, 20 * s), 10);  // [-1 ms, 19.999 s]
  EXPECT_DOUBLE_EQ(*sum_over_time(c, 20 * s, 20 * s - 1), 30);  // [1 ms, 20 s]
  EXPECT_DOUBLE_EQ(*sum_over_time(c, 20 * s, 0), 20);           // [20 s, 20 s]
}

TEST(PromqlTest, TooFewSamplesGiveNoValue) {
  const auto c = series({10, 20}, {1, 2});
  EXPECT_FALSE(rate(c, 15 * s, 10 * s));
  EXPECT_FALSE(increase(c, 15 * s, 10 * s));
  EXPECT_DOUBLE_EQ(*sum_over_time(c, 15 * s, 10 * s), 1);
  EXPECT_FALSE(sum_over_time(c, 9 * s, 5 * s));
  EXPECT_FALSE(sum_over_time(c, 30 * s, 9 * s));
  EXPECT_FALSE(sum_over_time(Series{}, 30 * s, 9 * s));
  EXPECT_FALSE(rate(Series{}, 30 * s, 9 * s));
}

TEST(PromqlTest, SumOverTimeCompensatesRoundingLikeKahanNeumaier) {
  // Summed naively 1e16 + 1 + 1 - 1e16 is 0; the compensation keeps the 2.
  const auto c = series({1, 2, 3, 4}, {1e16, 1, 1, -1e16});
  EXPECT_EQ(*sum_over_time(c, 4 * s, 10 * s), 2);
}

TEST(PromqlTest, EvaluateDispatches) {
  const auto c = series({10, 20, 30, 40, 50, 60}, {100, 110, 120, 130, 140, 150});
  EXPECT_DOUBLE_EQ(*evaluate(Function::increase, c, 65 * s, 60 * s), 60);
  EXPECT_DOUBLE_EQ(*evaluate(Function::rate, c, 65 * s, 60 * s), 1);
  EXPECT_DOUBLE_EQ(*evaluate(Function::sum_over_time, c, 65 * s, 60 * s), 750);
}

TEST(PromqlTest, TrimDropsSamplesUpToTheGivenTime) {
  auto c = series({10, 20, 30}, {1, 2, 3});
  trim(c, 20 * s);
  EXPECT_EQ(c.t_ms, (std::vector<std::int64_t>{30 * s}));
  EXPECT_EQ(c.v, (std::vector<double>{3}));
  trim(c, 0);
  EXPECT_EQ(c.v.size(), 1U);
  trim(c, 40 * s);
  EXPECT_TRUE(c.t_ms.empty() && c.v.empty());
}

}  // namespace
}  // namespace netscore::sim
