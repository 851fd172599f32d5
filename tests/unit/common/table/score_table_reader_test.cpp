#include "common/table/score_table_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tests/unit/common/table/score_table_fixture.h"

namespace netscore {
namespace {

using ::testing::HasSubstr;

TEST_F(ScoreTable, ReaderSeesEmptyTableUntilFirstPublish) {
  ScoreTableWriter writer(writer_options());
  ScoreTableReader reader(reader_options());
  std::vector<std::string_view> names{"a"};
  std::vector<NodeScore> out(1);
  shm::SnapshotMeta meta{};
  EXPECT_EQ(reader.lookup(names, out, meta), ReadStatus::empty);
  shm::CollectorStatus status{};
  EXPECT_EQ(reader.read_status(status), ReadStatus::empty);
}

TEST_F(ScoreTable, LookupFindsEveryPublishedNodeAndOnlyThose) {
  ScoreTableWriter writer(writer_options());
  std::vector<TableEntry> entries{entry("node-a", 10.5), entry("node-b", 20),
                                  entry("node-c", 0, false)};
  const auto counts = writer.publish(entries, 99'000);
  EXPECT_EQ(counts.stored, 3U);
  ScoreTableReader reader(reader_options());
  std::vector<std::string_view> names{"node-b", "node-x", "node-a", "node-c", "node-", ""};
  std::vector<NodeScore> out(names.size());
  shm::SnapshotMeta meta{};
  ASSERT_EQ(reader.lookup(names, out, meta), ReadStatus::ok);
  EXPECT_TRUE(out[0].found && out[0].valid());
  EXPECT_EQ(out[0].raw, 20);
  EXPECT_EQ(out[0].node_score, 80);
  EXPECT_FALSE(out[1].found);
  EXPECT_EQ(out[2].raw, 10.5);
  EXPECT_EQ(out[2].raw_score, 10);
  EXPECT_EQ(out[2].sample_ms, 1234);
  EXPECT_TRUE(out[3].found);
  EXPECT_FALSE(out[3].valid());
  EXPECT_FALSE(out[4].found);
  EXPECT_FALSE(out[5].found);
  EXPECT_EQ(meta.publish_id, 1U);
  EXPECT_EQ(meta.node_count, 3U);
  EXPECT_EQ(meta.valid_count, 2U);
  EXPECT_EQ(meta.max_raw_score, 20);
  EXPECT_EQ(meta.eval_time_ms, 99'000);
}

// Another UID's segment could have been planted to steer scheduling. Needs root (CAP_CHOWN) to
// hand the segment to another UID, as in the build container and scripts/test.sh (which runs as
// root or through sudo); as another user it fails saying so.
TEST_F(ScoreTable, ReaderRefusesAnotherUidsSegment) {
  ScoreTableWriter writer(writer_options());
  constexpr uid_t kOther = 4242;
  ASSERT_NE(::geteuid(), kOther);
  ASSERT_EQ(::chown(("/dev/shm/" + name_.str()).c_str(), kOther, kOther), 0)
      << "this test needs root (CAP_CHOWN) to give the segment to uid 4242: "
      << std::strerror(errno);
  EXPECT_THAT(error_of_attach(), HasSubstr("owned by uid 4242"));
  EXPECT_THAT(error_of_attach(), HasSubstr("run the collector as the same UID"));
}

TEST_F(ScoreTable, AttachmentKeepsTheOldReaderWhenTheTableVanishes) {
  ScoreTableWriter writer(writer_options());
  TableAttachment attachment(reader_options());
  ASSERT_TRUE(attachment.poll());
  ScoreTableWriter::remove(name_);
  EXPECT_FALSE(attachment.poll());
  EXPECT_NE(attachment.reader(), nullptr);
  EXPECT_THAT(attachment.last_error(), HasSubstr("cannot open"));
}

TEST_F(ScoreTable, ReaderRefusesMissingSegment) {
  EXPECT_THAT(error_of_attach(), HasSubstr("cannot open"));
}

TEST_F(ForgedSegment, ReaderAcceptsAWellFormedForgery) {
  forge(shm::compute_layout(16).segment_bytes, [](shm::SegmentHeader&) {});
  EXPECT_EQ(error_of_attach(), "attached");
}

TEST_F(ForgedSegment, ReaderRefusesTooSmall) {
  forge(16, [](shm::SegmentHeader&) {});
  EXPECT_THAT(error_of_attach(), HasSubstr("not a score table"));
}

TEST_F(ForgedSegment, ReaderRefusesWrongMagic) {
  forge(shm::compute_layout(16).segment_bytes, [](shm::SegmentHeader& h) { h.magic.store(0xBAD); });
  EXPECT_THAT(error_of_attach(), HasSubstr("magic"));
}

TEST_F(ForgedSegment, ReaderRefusesOtherLayoutVersion) {
  forge(shm::compute_layout(16).segment_bytes,
        [](shm::SegmentHeader& h) { h.layout_version = 99; });
  EXPECT_THAT(error_of_attach(), HasSubstr("layout version 99"));
}

TEST_F(ForgedSegment, ReaderRefusesSizeThatDoesNotMatchCapacity) {
  forge(shm::compute_layout(16).segment_bytes, [](shm::SegmentHeader& h) { h.capacity = 17; });
  EXPECT_THAT(error_of_attach(), HasSubstr("do not match its capacity"));
}

TEST_F(ForgedSegment, ReaderRefusesShiftedOffsets) {
  forge(shm::compute_layout(16).segment_bytes,
        [](shm::SegmentHeader& h) { h.snapshot_offset[1] += 64; });
  EXPECT_THAT(error_of_attach(), HasSubstr("offsets"));
}

TEST_F(ForgedSegment, ReaderRefusesAShiftedPlacementRing) {
  forge(shm::compute_layout(16).segment_bytes,
        [](shm::SegmentHeader& h) { h.placements_offset -= 64; });
  EXPECT_THAT(error_of_attach(), HasSubstr("offsets"));
}

}  // namespace
}  // namespace netscore
