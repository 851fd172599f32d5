#include "common/model_settings.h"

#include <gtest/gtest.h>

namespace netscore {
namespace {

TEST(ModelSettings, ScoringAndCorrectionFromTheCollectorsVariables) {
  const Config c = load_config(Component::collector, {},
                               {{"NETSCORE_SCORE_BASIS", "raw"},
                                {"NETSCORE_DIRECTION", "transmit"},
                                {"NETSCORE_FALLBACK_LINK_SPEED", "125M"},
                                {"NETSCORE_QUERY_FUNCTION", "increase"},
                                {"NETSCORE_TIME_RANGE", "2m"},
                                {"NETSCORE_CORRECTION", "false"},
                                {"NETSCORE_LEARN_WORKLOADS", "false"}});
  const model::ScoringSettings scoring = scoring_settings(c);
  EXPECT_EQ(scoring.basis, ScoreBasis::raw);
  EXPECT_EQ(scoring.direction, Direction::transmit);
  EXPECT_DOUBLE_EQ(scoring.fallback_speed, 125e6);
  const model::CorrectionSettings correction = correction_settings(c);
  EXPECT_FALSE(correction.enabled);
  EXPECT_EQ(correction.function, QueryFunction::increase);
  EXPECT_EQ(correction.window_ms, 120000);
  EXPECT_EQ(correction.learn_workloads, model::WorkloadLearning::off);
  EXPECT_DOUBLE_EQ(correction.default_rate, 1024);
  EXPECT_DOUBLE_EQ(correction.default_transmit_rate, 1024);
}

// The lag and the window come from the configuration once; a window as of another time keeps
// both.
TEST(ModelSettings, TheLoadWindowAndItsHorizonFromTheCollectorsVariables) {
  const Config c =
      load_config(Component::collector, {},
                  {{"NETSCORE_REFRESH_INTERVAL", "30s"}, {"NETSCORE_TIME_RANGE", "2m"}});
  const model::LoadWindow window = load_window(c, 5);
  EXPECT_EQ(window.now_ms, 5);
  EXPECT_EQ(window.lag_ms, 30000);
  EXPECT_EQ(window.window_ms, 120000);
  EXPECT_EQ(correction_settings(c).window_ms, window.window_ms);
  EXPECT_EQ(placement_horizon_ms(c), 150000);
  const model::LoadWindow later = window.at(1000);
  EXPECT_EQ(later.now_ms, 1000);
  EXPECT_EQ(later.lag_ms, window.lag_ms);
  EXPECT_EQ(later.window_ms, window.window_ms);
}

TEST(ModelSettings, PrioritizeFromTheExtendersVariables) {
  const Config c =
      load_config(Component::extender, {},
                  {{"NETSCORE_NORMALISATION", "range"}, {"NETSCORE_SPREAD_WINDOW", "250ms"}});
  const model::PrioritizeSettings prioritize = prioritize_settings(c);
  EXPECT_EQ(prioritize.normalisation, Normalisation::range);
  EXPECT_EQ(prioritize.neutral, 5);
  EXPECT_EQ(prioritize.spread_window_ns, 250'000'000);
}

}  // namespace
}  // namespace netscore
