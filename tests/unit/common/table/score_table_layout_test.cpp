#include "common/table/score_table_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/unit/common/table/score_table_fixture.h"

namespace netscore {
namespace {

using ::testing::HasSubstr;

TEST_F(ScoreTable, SegmentAt15000NodesFitsIn16MB) {
  EXPECT_LE(shm::compute_layout(15000).segment_bytes, 16U * 1000 * 1000);
}

TEST_F(ScoreTable, LayoutPartsDoNotOverlapAndStayAligned) {
  for (std::uint32_t capacity : {1U, 100U, 5000U, 65536U}) {
    const auto l = shm::compute_layout(capacity);
    EXPECT_GE(l.index_slots, 2 * capacity);
    EXPECT_EQ(l.index_slots & (l.index_slots - 1), 0U);
    EXPECT_GE(l.status_offset[0], sizeof(shm::SegmentHeader));
    EXPECT_EQ(l.status_offset[1], l.status_offset[0] + l.status_bytes);
    EXPECT_EQ(l.snapshot_offset[0], l.status_offset[1] + l.status_bytes);
    EXPECT_EQ(l.snapshot_offset[1], l.snapshot_offset[0] + l.snapshot_bytes);
    EXPECT_EQ(l.placements_offset, l.snapshot_offset[1] + l.snapshot_bytes);
    EXPECT_LE(l.entry_word(1, capacity - 1) * 8 + sizeof(shm::EntryRecord), l.placements_offset);
    EXPECT_EQ(l.snapshot_offset[1] % shm::kCacheLine, 0U);
    EXPECT_EQ(l.placements_offset % shm::kCacheLine, 0U);
    EXPECT_EQ(l.placement_word(1) * 8, l.placements_offset);
    EXPECT_EQ(l.placement_word(1 + shm::kPlacementSlots), l.placement_word(1));
    EXPECT_LE((l.placement_word(shm::kPlacementSlots) + shm::Layout::kPlacementSlotWords) * 8,
              l.segment_bytes);
  }
}

}  // namespace
}  // namespace netscore
