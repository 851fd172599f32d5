#include "extender/scheduler/link_figures.h"

#include <gtest/gtest.h>

namespace netscore::extender {
namespace {

constexpr std::uint32_t kRates = shm::kEntryRateValid | shm::kEntryTransmitRateValid;

TEST(LinkFiguresTest, SpeedNeedsASourceFlagAndAPositiveValue) {
  const shm::NodeFigures measured{.flags = shm::kEntrySpeedMeasured, .speed = 1.25e9};
  const shm::NodeFigures fallback{.flags = shm::kEntrySpeedFallback, .speed = 1.25e8};
  const shm::NodeFigures unflagged{.speed = 1.25e9};
  const shm::NodeFigures unusable{.flags = shm::kEntrySpeedUnusable};
  EXPECT_EQ(link_speed(measured), 1.25e9);
  EXPECT_EQ(speed_source(measured), "measured");
  EXPECT_EQ(link_speed(fallback), 1.25e8);
  EXPECT_EQ(speed_source(fallback), "fallback");
  EXPECT_EQ(link_speed(unflagged), std::nullopt);
  EXPECT_EQ(speed_source(unflagged), "none");
  EXPECT_EQ(link_speed(unusable), std::nullopt);
  EXPECT_EQ(speed_source(unusable), "none");
}

TEST(LinkFiguresTest, UtilisationIsRateOverSpeedPerDirection) {
  // 3/7 and 5/7 are not exact in binary: the expected values are the same double divisions.
  const shm::NodeFigures f{
      .rate = 3, .flags = kRates | shm::kEntrySpeedMeasured, .transmit_rate = 5, .speed = 7};
  EXPECT_EQ(receive_utilisation(f), 3.0 / 7.0);
  EXPECT_EQ(transmit_utilisation(f), 5.0 / 7.0);
  EXPECT_EQ(utilisation_in(f, Direction::receive), 3.0 / 7.0);
  EXPECT_EQ(utilisation_in(f, Direction::transmit), 5.0 / 7.0);
  EXPECT_EQ(utilisation_in(f, Direction::busier), 5.0 / 7.0);
}

TEST(LinkFiguresTest, AMissingRateOrSpeedLeavesTheUtilisationUnknown) {
  const shm::NodeFigures receive_only{
      .rate = 8, .flags = shm::kEntryRateValid | shm::kEntrySpeedFallback, .speed = 10};
  EXPECT_EQ(transmit_utilisation(receive_only), std::nullopt);
  EXPECT_EQ(utilisation_in(receive_only, Direction::transmit), std::nullopt);
  EXPECT_EQ(utilisation_in(receive_only, Direction::busier), 0.8);
  const shm::NodeFigures no_speed{.rate = 8, .flags = kRates, .transmit_rate = 9};
  EXPECT_EQ(utilisation_in(no_speed, Direction::busier), std::nullopt);
}

TEST(LinkFiguresTest, SnapshotBasisAndDirectionReadBack) {
  shm::SnapshotMeta meta{};
  meta.basis = static_cast<std::uint32_t>(ScoreBasis::utilisation);
  meta.direction = static_cast<std::uint32_t>(Direction::busier);
  EXPECT_EQ(snapshot_basis(meta), ScoreBasis::utilisation);
  EXPECT_EQ(snapshot_direction(meta), Direction::busier);
  EXPECT_TRUE(scored_on_utilisation({.flags = shm::kEntryUtilisation}));
  EXPECT_FALSE(scored_on_utilisation({.flags = shm::kEntryValid}));
}

}  // namespace
}  // namespace netscore::extender
