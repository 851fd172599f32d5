// A node's measured figures in every basis, direction and speed source, with hand-computed
// values (model_fixtures.h: both_directions), and its link figures read back.
#include "common/model/figures.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "tests/unit/common/model/model_fixtures.h"

namespace netscore::model {
namespace {

constexpr std::uint32_t kRates = kEntryRateValid | kEntryTransmitRateValid;
constexpr std::uint32_t kBothDirections =
    kEntryValid | kEntryHasSeries | kEntryRateValid | kEntryTransmitValid | kEntryTransmitRateValid;

struct FiguresCase {
  const char* name;
  NodeSample sample;
  ScoringSettings scoring;
  double scored;
  std::int64_t raw_score;
  std::uint32_t flags;
  double speed;
};

TEST(MeasuredFigures, EveryBasisDirectionAndSpeed) {
  const auto raw = ScoreBasis::raw;
  const auto util = ScoreBasis::utilisation;
  const auto rx = Direction::receive;
  const auto tx = Direction::transmit;
  const auto max = Direction::max;
  const std::uint32_t measured = kBothDirections | kEntrySpeedMeasured;
  const std::uint32_t fallback = kBothDirections | kEntrySpeedFallback;
  const std::uint32_t unusable = kBothDirections | kEntrySpeedUnusable;
  const std::vector<FiguresCase> cases{
      // The raw basis ignores the speed, measured or not.
      {"raw receive", both_directions(1024), scoring(raw, rx), 5000, 5000, measured, 1024},
      {"raw transmit", both_directions(1024), scoring(raw, tx), 8000, 8000, measured, 1024},
      {"raw busier", both_directions(1024), scoring(raw, max), 8000, 8000, measured, 1024},
      {"raw, no speed", both_directions(0), scoring(raw, tx), 8000, 8000, kBothDirections, 0},
      // Utilisation with a measured speed: 256/1024 and 512/1024, in parts per million.
      {"util receive measured", both_directions(1024), scoring(util, rx), 0.25, 250000,
       measured | kEntryUtilisation, 1024},
      {"util transmit measured", both_directions(1024), scoring(util, tx), 0.5, 500000,
       measured | kEntryUtilisation, 1024},
      {"util busier measured", both_directions(1024), scoring(util, max), 0.5, 500000,
       measured | kEntryUtilisation, 1024},
      // A measured speed wins over the fallback.
      {"util measured beats fallback", both_directions(1024), scoring(util, rx, 4096), 0.25, 250000,
       measured | kEntryUtilisation, 1024},
      // The fallback without a speed series: 256/2048 and 512/2048.
      {"util receive fallback", both_directions(0), scoring(util, rx, 2048), 0.125, 125000,
       fallback | kEntryUtilisation, 2048},
      {"util transmit fallback", both_directions(0), scoring(util, tx, 2048), 0.25, 250000,
       fallback | kEntryUtilisation, 2048},
      {"util busier fallback", both_directions(0), scoring(util, max, 2048), 0.25, 250000,
       fallback | kEntryUtilisation, 2048},
      // Only node-exporter's -1: the fallback if any, else the raw basis.
      {"util -1 with fallback", both_directions(0, 1), scoring(util, tx, 2048), 0.25, 250000,
       unusable | kEntrySpeedFallback | kEntryUtilisation, 2048},
      {"util -1 only receive", both_directions(0, 1), scoring(util, rx), 5000, 5000, unusable, 0},
      {"util -1 only transmit", both_directions(0, 1), scoring(util, tx), 8000, 8000, unusable, 0},
      {"util -1 only busier", both_directions(0, 1), scoring(util, max), 8000, 8000, unusable, 0},
      // No speed at all and no fallback: the raw basis.
      {"util missing receive", both_directions(0), scoring(util, rx), 5000, 5000, kBothDirections,
       0},
      {"util missing busier", both_directions(0), scoring(util, max), 8000, 8000, kBothDirections,
       0},
  };
  for (const auto& c : cases) {
    const NodeFigures f = measured_figures(c.sample, 9, c.scoring);
    EXPECT_EQ(f.scored, c.scored) << c.name;
    EXPECT_EQ(f.raw_score, c.raw_score) << c.name;
    EXPECT_EQ(f.corrected_raw_score, c.raw_score) << c.name;
    EXPECT_EQ(f.flags, c.flags) << c.name;
    EXPECT_EQ(f.speed, c.speed) << c.name;
    EXPECT_EQ(f.raw, 5000) << c.name;
    EXPECT_EQ(f.rate, 256) << c.name;
    EXPECT_EQ(f.raw_transmit, 8000) << c.name;
    EXPECT_EQ(f.transmit_rate, 512) << c.name;
    EXPECT_EQ(f.sample_ms, 9) << c.name;
  }
}

TEST(MeasuredFigures, AMissingRateInTheDirectionFallsBackToTheRawValue) {
  NodeSample no_receive_rate = both_directions(1024);
  no_receive_rate.rate_valid = false;
  const auto rx =
      measured_figures(no_receive_rate, 1, scoring(ScoreBasis::utilisation, Direction::receive));
  EXPECT_EQ(rx.flags & kEntryUtilisation, 0U);
  EXPECT_EQ(rx.scored, 5000);
  EXPECT_EQ(rx.raw_score, 5000);
  EXPECT_EQ(rx.rate, 0) << "an unanswered rate is not published";
  // Busier takes the one utilisation it has: 512/1024.
  const auto busier =
      measured_figures(no_receive_rate, 1, scoring(ScoreBasis::utilisation, Direction::max));
  EXPECT_EQ(busier.flags & kEntryUtilisation, kEntryUtilisation);
  EXPECT_EQ(busier.raw_score, 500000);

  NodeSample no_transmit = both_directions(1024);
  no_transmit.transmit_rate_valid = false;
  no_transmit.transmit_value_valid = false;
  const auto tx =
      measured_figures(no_transmit, 1, scoring(ScoreBasis::utilisation, Direction::transmit));
  EXPECT_FALSE(tx.flags & kEntryValid) << "nothing measured in the direction";
  EXPECT_EQ(tx.raw_score, 0);
  const auto raw_busier =
      measured_figures(no_transmit, 1, scoring(ScoreBasis::raw, Direction::max));
  EXPECT_EQ(raw_busier.scored, 5000) << "busier of what was answered";
  EXPECT_EQ(raw_busier.flags & kEntryValid, kEntryValid);
}

TEST(LinkFigures, SpeedNeedsASourceFlagAndAPositiveValue) {
  const NodeFigures measured{.flags = kEntrySpeedMeasured, .speed = 1.25e9};
  const NodeFigures fallback{.flags = kEntrySpeedFallback, .speed = 1.25e8};
  const NodeFigures unflagged{.speed = 1.25e9};
  const NodeFigures unusable{.flags = kEntrySpeedUnusable};
  EXPECT_EQ(link_speed(measured), 1.25e9);
  EXPECT_EQ(link_speed(fallback), 1.25e8);
  EXPECT_EQ(link_speed(unflagged), std::nullopt);
  EXPECT_EQ(link_speed(unusable), std::nullopt);
}

TEST(LinkFigures, UtilisationIsRateOverSpeedPerDirection) {
  // 3/7 and 5/7 are not exact in binary: the expected values are the same double divisions.
  const NodeFigures f{
      .rate = 3, .flags = kRates | kEntrySpeedMeasured, .transmit_rate = 5, .speed = 7};
  EXPECT_EQ(receive_utilisation(f), 3.0 / 7.0);
  EXPECT_EQ(transmit_utilisation(f), 5.0 / 7.0);
  EXPECT_EQ(utilisation_in(f, Direction::receive), 3.0 / 7.0);
  EXPECT_EQ(utilisation_in(f, Direction::transmit), 5.0 / 7.0);
  EXPECT_EQ(utilisation_in(f, Direction::max), 5.0 / 7.0);
}

TEST(LinkFigures, AMissingRateOrSpeedLeavesTheUtilisationUnknown) {
  const NodeFigures receive_only{
      .rate = 8, .flags = kEntryRateValid | kEntrySpeedFallback, .speed = 10};
  EXPECT_EQ(transmit_utilisation(receive_only), std::nullopt);
  EXPECT_EQ(utilisation_in(receive_only, Direction::transmit), std::nullopt);
  EXPECT_EQ(utilisation_in(receive_only, Direction::max), 0.8);
  const NodeFigures no_speed{.rate = 8, .flags = kRates, .transmit_rate = 9};
  EXPECT_EQ(utilisation_in(no_speed, Direction::max), std::nullopt);
}

TEST(LinkFigures, TheBasisIsTheUtilisationFlag) {
  EXPECT_TRUE(scored_on_utilisation({.flags = kEntryUtilisation}));
  EXPECT_FALSE(scored_on_utilisation({.flags = kEntryValid}));
}

}  // namespace
}  // namespace netscore::model
