#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "tests/support/table_name.h"

namespace netscore {
namespace {

using ::testing::HasSubstr;

class ScoreTable : public ::testing::Test {
 protected:
  ScoreTableWriter::Options writer_options(std::uint32_t capacity = 64) const {
    return {.name = name_, .capacity = capacity};
  }
  ScoreTableReader::Options reader_options() const { return {.name = name_}; }

  static TableEntry entry(std::string name, double raw, bool valid = true) {
    return {{.raw = raw,
             .raw_score = static_cast<std::int64_t>(raw),
             .node_score = 100 - static_cast<std::int64_t>(raw),
             .sample_ms = 1234,
             .corrected_raw_score = static_cast<std::int64_t>(raw),
             .corrected_node_score = 100 - static_cast<std::int64_t>(raw),
             .flags = shm::kEntryHasSeries | (valid ? shm::kEntryValid : 0U)},
            std::move(name)};
  }

  std::string error_of_attach() const {
    try {
      ScoreTableReader reader(reader_options());
    } catch (const shm::TableError& e) {
      return e.what();
    }
    return "attached";
  }

  netscore::testing::TableName name_{"unit"};
};

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

// Another UID's segment could have been planted to steer scheduling. Needs root (CAP_CHOWN) to
// hand the segment to another UID, as in the build container and scripts/test.sh (which runs as
// root or through sudo); as another user it fails saying so.
TEST_F(ScoreTable, ReaderRefusesAnotherUidsSegmentUnlessAllowed) {
  ScoreTableWriter writer(writer_options());
  constexpr uid_t kOther = 4242;
  ASSERT_NE(::geteuid(), kOther);
  ASSERT_EQ(::chown(("/dev/shm/" + name_.str()).c_str(), kOther, kOther), 0)
      << "this test needs root (CAP_CHOWN) to give the segment to uid 4242: "
      << std::strerror(errno);
  EXPECT_THAT(error_of_attach(), HasSubstr("owned by uid 4242"));
  EXPECT_THAT(error_of_attach(), HasSubstr("NETSCORE_SHM_ALLOW_FOREIGN_OWNER"));
  EXPECT_NO_THROW(ScoreTableReader({.name = name_, .allow_foreign_owner = true}));
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

TEST_F(ScoreTable, AttachmentKeepsTheOldReaderWhenTheTableVanishes) {
  ScoreTableWriter writer(writer_options());
  TableAttachment attachment(reader_options());
  ASSERT_TRUE(attachment.poll());
  ScoreTableWriter::remove(name_);
  EXPECT_FALSE(attachment.poll());
  EXPECT_NE(attachment.reader(), nullptr);
  EXPECT_THAT(attachment.last_error(), HasSubstr("cannot open"));
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

TEST_F(ScoreTable, ReaderRefusesMissingSegment) {
  EXPECT_THAT(error_of_attach(), HasSubstr("cannot open"));
}

// Writes a raw segment by hand to check what the reader refuses.
class ForgedSegment : public ScoreTable {
 protected:
  void forge(std::size_t bytes, const std::function<void(shm::SegmentHeader&)>& edit) {
    const int fd = ::shm_open(("/" + name_.str()).c_str(), O_CREAT | O_RDWR, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(bytes)), 0);
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ASSERT_NE(p, MAP_FAILED);
    if (bytes >= sizeof(shm::SegmentHeader)) {
      const auto layout = shm::compute_layout(16);
      auto* h = new (p) shm::SegmentHeader{};
      h->layout_version = shm::kLayoutVersion;
      h->segment_bytes = layout.segment_bytes;
      h->capacity = 16;
      h->index_slots = layout.index_slots;
      for (int c = 0; c < 2; ++c) {
        h->status_offset[c] = layout.status_offset[c];
        h->snapshot_offset[c] = layout.snapshot_offset[c];
      }
      h->placements_offset = layout.placements_offset;
      h->magic.store(shm::kMagic);
      edit(*h);
    }
    ::munmap(p, bytes);
    ::close(fd);
  }
};

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

TEST_F(ForgedSegment, WriterReplacesAnIncompatibleSegment) {
  forge(shm::compute_layout(16).segment_bytes,
        [](shm::SegmentHeader& h) { h.layout_version = 99; });
  ScoreTableWriter writer(writer_options(16));
  EXPECT_FALSE(writer.took_over());
  EXPECT_EQ(error_of_attach(), "attached");
}

}  // namespace
}  // namespace netscore
