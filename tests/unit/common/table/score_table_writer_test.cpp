#include "common/table/score_table_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include "tests/unit/common/table/score_table_fixture.h"

namespace netscore {
namespace {

using ::testing::HasSubstr;

TEST_F(ScoreTable, LaterPublishReplacesTheWholeSnapshot) {
  ScoreTableWriter writer(writer_options());
  ScoreTableReader reader(reader_options());
  writer.publish(std::vector{entry("old", 1)}, 1);
  writer.publish(std::vector{entry("new", 2)}, 2);
  std::vector<TableRow> rows;
  shm::SnapshotMeta meta{};
  ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].name, "new");
  EXPECT_EQ(meta.publish_id, 2U);
  std::vector<std::string_view> names{"old"};
  std::vector<NodeScore> out(1);
  ASSERT_EQ(reader.lookup(names, out, meta), ReadStatus::ok);
  EXPECT_FALSE(out[0].found);
}

// A publish of the names a copy already holds rewrites only the changed figures: every publish,
// into either copy, must still read back exactly, including after the names changed in between
// and after a publish that rejected a name (its copy holds fewer records than entries).
TEST_F(ScoreTable, RepublishingTheSameNamesReadsBackEveryPublishExactly) {
  ScoreTableWriter writer(writer_options());
  ScoreTableReader reader(reader_options());
  const std::vector<std::vector<TableEntry>> publishes{
      {entry("node-a", 1), entry("node-b", 2), entry("node-c", 3)},
      {entry("node-a", 1), entry("node-b", 2), entry("node-c", 3)},
      {entry("node-a", 5), entry("node-b", 2), entry("node-c", 7, false)},
      {entry("node-a", 6), entry("node-b", 2), entry("node-c", 7)},
      {entry("node-a", 6), entry("node-c", 8), entry("node-d", 9)},
      {entry("node-a", 6), entry("node-c", 8), entry("node-d", 9)},
      {entry("node-a", 6), entry("node-a", 1), entry("node-d", 9)},
      {entry("node-a", 4), entry("node-c", 8), entry("node-d", 9)},
      {entry("node-a", 4), entry("node-c", 2), entry("node-d", 9)},
      {entry("node-a", 3), entry("node-c", 2), entry("node-d", 1)},
  };
  for (std::size_t p = 0; p < publishes.size(); ++p) {
    SCOPED_TRACE(p);
    writer.publish(publishes[p], static_cast<std::int64_t>(p));
    std::vector<TableRow> rows;
    shm::SnapshotMeta meta{};
    ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
    std::vector<const TableEntry*> expected;
    for (const auto& e : publishes[p]) {
      const bool seen = std::any_of(expected.begin(), expected.end(),
                                    [&](const TableEntry* x) { return x->name == e.name; });
      if (!seen) expected.push_back(&e);
    }
    ASSERT_EQ(rows.size(), expected.size());
    std::size_t valid = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].name, expected[i]->name);
      EXPECT_EQ(rows[i].score.raw, expected[i]->raw);
      EXPECT_EQ(rows[i].score.node_score, expected[i]->node_score);
      EXPECT_EQ(rows[i].score.valid(), expected[i]->valid());
      if (expected[i]->valid()) ++valid;
    }
    EXPECT_EQ(meta.valid_count, valid);
    std::vector<std::string_view> names;
    for (const auto* e : expected) names.push_back(e->name);
    std::vector<NodeScore> out(names.size());
    ASSERT_EQ(reader.lookup(names, out, meta), ReadStatus::ok);
    for (std::size_t i = 0; i < names.size(); ++i) {
      EXPECT_TRUE(out[i].found);
      EXPECT_EQ(out[i].raw, expected[i]->raw);
    }
  }
}

TEST_F(ScoreTable, MoreNodesThanCapacityCountAsOverflowAndNeverWriteOutOfBounds) {
  ScoreTableWriter writer(writer_options(4));
  std::vector<TableEntry> entries;
  for (int i = 0; i < 10; ++i) entries.push_back(entry("n" + std::to_string(i), i));
  const auto counts = writer.publish(entries, 0);
  EXPECT_EQ(counts.stored, 4U);
  EXPECT_EQ(counts.overflow, 6U);
  ScoreTableReader reader(reader_options());
  std::vector<TableRow> rows;
  shm::SnapshotMeta meta{};
  ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
  EXPECT_EQ(rows.size(), 4U);
  EXPECT_EQ(meta.overflow, 6U);
}

TEST_F(ScoreTable, LongEmptyAndDuplicateNamesAreRejected) {
  ScoreTableWriter writer(writer_options());
  const std::string longest(253, 'x');
  const auto counts = writer.publish(std::vector{entry(longest, 1), entry(std::string(254, 'y'), 2),
                                                 entry("", 3), entry("dup", 4), entry("dup", 5)},
                                     0);
  EXPECT_EQ(counts.stored, 2U);
  EXPECT_EQ(counts.rejected, 3U);
  ScoreTableReader reader(reader_options());
  std::vector<std::string_view> names{longest, "dup"};
  std::vector<NodeScore> out(2);
  shm::SnapshotMeta meta{};
  ASSERT_EQ(reader.lookup(names, out, meta), ReadStatus::ok);
  EXPECT_TRUE(out[0].found);
  EXPECT_EQ(out[1].raw, 4);  // the first of the duplicates wins
}

TEST_F(ScoreTable, StatusRoundTripsIndependentlyOfSnapshots) {
  ScoreTableWriter writer(writer_options());
  ScoreTableReader reader(reader_options());
  shm::CollectorStatus status{};
  status.consecutive_failures = 3;
  status.last_success_wall_ms = 42;
  std::snprintf(status.last_error, sizeof(status.last_error), "%s", "connect: refused");
  writer.record_status(status);
  shm::CollectorStatus read{};
  ASSERT_EQ(reader.read_status(read), ReadStatus::ok);
  EXPECT_EQ(read.consecutive_failures, 3U);
  EXPECT_EQ(read.last_success_wall_ms, 42);
  EXPECT_STREQ(read.last_error, "connect: refused");
}

TEST_F(ScoreTable, CreatedWithMode0600) {
  ScoreTableWriter writer(writer_options());
  struct stat st {};
  ASSERT_EQ(::stat(("/dev/shm/" + name_.str()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
}

TEST_F(ScoreTable, TakeOverRestoresTheConfiguredMode) {
  { ScoreTableWriter writer(writer_options()); }
  ASSERT_EQ(::chmod(("/dev/shm/" + name_.str()).c_str(), 0666), 0);
  ScoreTableWriter writer(writer_options());
  ASSERT_TRUE(writer.took_over());
  struct stat st {};
  ASSERT_EQ(::stat(("/dev/shm/" + name_.str()).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
}

TEST_F(ScoreTable, SecondWriterIsRefusedWhileTheFirstLives) {
  ScoreTableWriter writer(writer_options());
  try {
    ScoreTableWriter second(writer_options());
    FAIL() << "second writer opened the table";
  } catch (const shm::TableError& e) {
    EXPECT_THAT(e.what(), HasSubstr("locked by another running collector"));
  }
}

TEST_F(ScoreTable, NewWriterTakesOverAndKeepsTheLastSnapshot) {
  {
    ScoreTableWriter writer(writer_options());
    writer.publish(std::vector{entry("kept", 7)}, 0);
  }
  ScoreTableWriter writer(writer_options());
  EXPECT_TRUE(writer.took_over());
  EXPECT_EQ(writer.last_publish_id(), 1U);
  ScoreTableReader reader(reader_options());
  std::vector<std::string_view> names{"kept"};
  std::vector<NodeScore> out(1);
  shm::SnapshotMeta meta{};
  ASSERT_EQ(reader.lookup(names, out, meta), ReadStatus::ok);
  EXPECT_EQ(out[0].raw, 7);
  writer.publish(std::vector{entry("next", 8)}, 0);
  ASSERT_EQ(reader.lookup(names, out, meta), ReadStatus::ok);
  EXPECT_EQ(meta.publish_id, 2U);
}

TEST_F(ScoreTable, WriterWithOtherCapacityRecreatesAndReadersReattach) {
  std::optional<ScoreTableWriter> writer(std::in_place, writer_options(8));
  writer->publish(std::vector{entry("a", 1)}, 0);
  TableAttachment attachment(reader_options());
  EXPECT_TRUE(attachment.poll());
  EXPECT_FALSE(attachment.poll());
  EXPECT_EQ(attachment.reader()->layout().capacity, 8U);
  writer.reset();
  writer.emplace(writer_options(128));
  EXPECT_FALSE(writer->took_over());
  EXPECT_TRUE(attachment.reader()->superseded());
  EXPECT_TRUE(attachment.poll());
  EXPECT_EQ(attachment.reader()->layout().capacity, 128U);
}

shm::PlacementRecord placement(std::string_view node, std::string_view pod, std::int64_t placed) {
  shm::PlacementRecord r{};
  r.placed_wall_ms = placed;
  r.receive_rate = static_cast<double>(placed) / 2;
  r.transmit_rate = -1;
  r.receive_priced_by = shm::kEntryPricedByMeasurement;
  r.transmit_priced_by = shm::kEntryPricedByAverage;
  shm::set_placement_names(r, node, pod);
  return r;
}

TEST_F(ScoreTable, PlacementsReadBackInOrderNumberedFromOne) {
  ScoreTableWriter writer(writer_options());
  ScoreTableReader reader(reader_options());
  EXPECT_TRUE(reader.read_placements().empty());
  writer.record_placement(placement("n1", "shop/a", 10));
  writer.record_placement(placement("n2", "shop/b", 20));
  const auto read = reader.read_placements();
  ASSERT_EQ(read.size(), 2U);
  EXPECT_EQ(read[0].number, 1U);
  EXPECT_EQ(read[1].number, 2U);
  EXPECT_EQ(std::string_view(read[1].node, read[1].node_len), "n2");
  EXPECT_EQ(read[1].node_hash, shm::name_hash("n2"));
  EXPECT_EQ(std::string_view(read[1].pod, read[1].pod_len), "shop/b");
  EXPECT_EQ(read[1].placed_wall_ms, 20);
  EXPECT_EQ(read[1].receive_rate, 10);
  EXPECT_EQ(read[1].transmit_rate, -1);
  EXPECT_EQ(read[1].receive_priced_by, shm::kEntryPricedByMeasurement);
  EXPECT_EQ(read[1].transmit_priced_by, shm::kEntryPricedByAverage);
  EXPECT_EQ(writer.placements_written(), 2U);
}

TEST_F(ScoreTable, TheRingKeepsTheLatestPlacementsAndATakeOverNumbersOn) {
  {
    ScoreTableWriter writer(writer_options());
    for (std::int64_t i = 1; i <= 300; ++i) writer.record_placement(placement("n", "p", i));
  }
  ScoreTableWriter writer(writer_options());
  ASSERT_TRUE(writer.took_over());
  writer.record_placement(placement("n", "p", 301));
  const auto read = ScoreTableReader(reader_options()).read_placements();
  ASSERT_EQ(read.size(), shm::kPlacementSlots);
  for (std::size_t i = 0; i < read.size(); ++i) {
    const std::uint64_t number = 301 - shm::kPlacementSlots + 1 + i;
    EXPECT_EQ(read[i].number, number);
    EXPECT_EQ(read[i].placed_wall_ms, static_cast<std::int64_t>(number));
  }
}

TEST_F(ForgedSegment, WriterReplacesAnIncompatibleSegment) {
  forge(shm::compute_layout(16).segment_bytes,
        [](shm::SegmentHeader& h) { h.layout_version = 99; });
  ScoreTableWriter writer(writer_options(16));
  EXPECT_FALSE(writer.took_over());
  EXPECT_EQ(error_of_attach(), "attached");
}

}  // namespace
}  // namespace netscore
