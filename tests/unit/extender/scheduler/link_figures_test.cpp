#include "extender/scheduler/link_figures.h"

#include <gtest/gtest.h>

namespace netscore::extender {
namespace {

TEST(LinkFiguresTest, TheSpeedsSourceIsItsFlag) {
  const shm::NodeFigures measured{.flags = shm::kEntrySpeedMeasured, .speed = 1.25e9};
  const shm::NodeFigures fallback{.flags = shm::kEntrySpeedFallback, .speed = 1.25e8};
  const shm::NodeFigures unflagged{.speed = 1.25e9};
  const shm::NodeFigures unusable{.flags = shm::kEntrySpeedUnusable};
  EXPECT_EQ(speed_source(measured), "measured");
  EXPECT_EQ(speed_source(fallback), "fallback");
  EXPECT_EQ(speed_source(unflagged), "none");
  EXPECT_EQ(speed_source(unusable), "none");
}

TEST(LinkFiguresTest, SnapshotBasisAndDirectionReadBack) {
  shm::SnapshotMeta meta{};
  meta.basis = static_cast<std::uint32_t>(ScoreBasis::utilisation);
  meta.direction = static_cast<std::uint32_t>(Direction::max);
  EXPECT_EQ(snapshot_basis(meta), ScoreBasis::utilisation);
  EXPECT_EQ(snapshot_direction(meta), Direction::max);
}

}  // namespace
}  // namespace netscore::extender
