#include "common/model/scoring.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace netscore::model {
namespace {

std::vector<std::int64_t> normalised(std::vector<std::int64_t> raw) {
  std::vector<std::int64_t> out(raw.size());
  normalise_scores(raw, out);
  return out;
}

TEST(PluginScore, TruncatesTowardZeroLikeGo) {
  EXPECT_EQ(plugin_score(0.0), 0);
  EXPECT_EQ(plugin_score(12.999), 12);
  EXPECT_EQ(plugin_score(1e15 + 0.5), 1'000'000'000'000'000);
}

TEST(PluginScore, RejectsWhatGoWouldMangle) {
  EXPECT_FALSE(plugin_score(std::nan("")));
  EXPECT_FALSE(plugin_score(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(plugin_score(-std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(plugin_score(-1.0));
  EXPECT_FALSE(plugin_score(9223372036854775808.0));
}

TEST(NormaliseScores, MatchesGoIntegerArithmetic) {
  // 100 - raw*100/max with integer division: 100 - 3300/100 = 67, 100 - 6600/100 = 34.
  EXPECT_EQ(normalised({33, 66, 100}), (std::vector<std::int64_t>{67, 34, 0}));
  // 100 - 100/3 = 100 - 33 = 67 (division truncates before the subtraction).
  EXPECT_EQ(normalised({1, 3}), (std::vector<std::int64_t>{67, 0}));
  EXPECT_EQ(normalised({0, 7}), (std::vector<std::int64_t>{100, 0}));
}

TEST(NormaliseScoreRange, SpansTheWholeRangeBetweenTheLeastAndTheMostLoaded) {
  // 100 - (raw - min) * 100 / (max - min), integer division first.
  EXPECT_EQ(normalise_score_range(900, 900, 1000), 100);
  EXPECT_EQ(normalise_score_range(1000, 900, 1000), 0);
  EXPECT_EQ(normalise_score_range(933, 900, 1000), 67);
  EXPECT_EQ(normalise_score_range(950, 900, 1000), 50);
  // Equal nodes all score the maximum; values outside [min, max] are clamped.
  EXPECT_EQ(normalise_score_range(5, 5, 5), 100);
  EXPECT_EQ(normalise_score_range(2000, 900, 1000), 0);
  EXPECT_EQ(normalise_score_range(INT64_MAX, 0, INT64_MAX), 0);
}

TEST(NormaliseScores, AllIdleGivesMaxInsteadOfDividingByZero) {
  EXPECT_EQ(normalised({0, 0, 0}), (std::vector<std::int64_t>{100, 100, 100}));
  EXPECT_EQ(normalised({}), (std::vector<std::int64_t>{}));
}

TEST(NormaliseScores, LargeValuesDoNotOverflow) {
  // raw * 100 exceeds int64 here; 10^18 * 100 / (4 * 10^18) = 25.
  EXPECT_EQ(normalised({4'000'000'000'000'000'000, 1'000'000'000'000'000'000}),
            (std::vector<std::int64_t>{0, 75}));
}

TEST(ExtenderScore, RoundsHalfUpIntoZeroToTen) {
  EXPECT_EQ(to_extender_score(0), 0);
  EXPECT_EQ(to_extender_score(4), 0);
  EXPECT_EQ(to_extender_score(5), 1);
  EXPECT_EQ(to_extender_score(14), 1);
  EXPECT_EQ(to_extender_score(15), 2);
  EXPECT_EQ(to_extender_score(94), 9);
  EXPECT_EQ(to_extender_score(95), 10);
  EXPECT_EQ(to_extender_score(100), 10);
  EXPECT_EQ(to_extender_score(-3), 0);
  EXPECT_EQ(to_extender_score(250), 10);
}

TEST(NormaliseScore, SubsetNormalisationUsesTheSubsetMax) {
  // The extender normalises over the requested nodes only: 50 is the max of {10, 50}.
  EXPECT_EQ(normalise_score(10, 50), 80);
  EXPECT_EQ(normalise_score(50, 50), 0);
  EXPECT_EQ(normalise_score(0, 0), 100);
}

}  // namespace
}  // namespace netscore::model
