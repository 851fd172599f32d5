// A writer SIGKILLed while publishing must leave readers on the last complete snapshot, and a new
// writer must take the segment over and continue from there. The writer stops itself (SIGSTOP) at
// a chosen point of a publish through the writer's test hook and is killed there, so every kill
// lands where the test says, whatever the scheduler does; a second test adds kills at random
// instants for the points between the named ones.
#include <signal.h>

#include <gtest/gtest.h>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include <chrono>
#include <cstdio>
#include <random>

#include "tests/support/child_process.h"
#include "tests/support/eventually.h"
#include "tests/support/table_name.h"
#include "tests/support/table_pattern.h"

namespace netscore::testing {
namespace {

namespace bip = boost::interprocess;

constexpr std::uint32_t kBase = 100;
constexpr std::uint32_t kCapacity = 256;

struct Nothing {};

// What the copy readers are NOT using holds, read straight from the segment.
struct IdleCopy {
  std::uint32_t index_slots_used = 0;
  std::uint32_t entries_of_next = 0;  // entries whose figures say they belong to publish `next`
  bool entries_are_a_prefix = true;   // those entries are exactly the first entries_of_next ones
  std::uint64_t meta_publish_id = 0;
  std::uint64_t status_refreshes = 0;  // status copy: refreshes_total
};

IdleCopy inspect_idle_copy(const std::string& name, std::uint64_t next) {
  bip::shared_memory_object object(bip::open_only, name.c_str(), bip::read_only);
  bip::mapped_region region(object, bip::read_only);
  const auto* header = static_cast<const shm::SegmentHeader*>(region.get_address());
  const auto* words = static_cast<const shm::Word*>(region.get_address());
  const auto layout = shm::compute_layout(header->capacity);
  const std::size_t idle = (header->snapshot_seq.load() + 1) & 1;
  IdleCopy copy;
  for (std::uint32_t i = 0; i < layout.index_slots; ++i)
    copy.index_slots_used += words[layout.index_word(idle) + i].load() != 0;
  constexpr std::size_t kFiguresWord = offsetof(shm::EntryRecord, figures) / 8;
  for (std::uint32_t i = 0; i < layout.capacity; ++i) {
    shm::NodeFigures figures;
    seqlock::load(words + layout.entry_word(idle, i) + kFiguresWord, figures);
    if (!figures_match(next, i, figures)) continue;
    copy.entries_are_a_prefix = copy.entries_are_a_prefix && i == copy.entries_of_next;
    ++copy.entries_of_next;
  }
  shm::SnapshotMeta meta{};
  seqlock::load(words + layout.snapshot_offset[idle] / 8, meta);
  copy.meta_publish_id = meta.publish_id;
  shm::CollectorStatus status{};
  seqlock::load(words + layout.status_offset[(header->status_seq.load() + 1) & 1] / 8, status);
  copy.status_refreshes = status.refreshes_total;
  return copy;
}

shm::CollectorStatus status_for(std::uint64_t publish_id) {
  shm::CollectorStatus status{};
  status.writer_pid = ::getpid();
  status.refreshes_total = publish_id;
  return status;
}

struct KillPoint {
  const char* what;
  WritePoint point;
  std::uint32_t stored;  // entry_stored only: stop once this many entries are written
};

class ScoreTableCrash : public ::testing::Test {
 protected:
  void SetUp() override {
    ScoreTableWriter first({.name = name_, .capacity = kCapacity});
    first.publish(pattern_snapshot(1, kBase), 0);
    first.record_status(status_for(1));
  }

  // Readers see exactly publish `id` (complete, self-consistent) and the status of `status_id`.
  void expect_visible(std::uint64_t id, std::uint64_t status_id, const std::string& when) {
    ScoreTableReader reader({.name = name_});
    std::vector<TableRow> rows;
    shm::SnapshotMeta meta{};
    ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok) << when;
    EXPECT_EQ(meta.publish_id, id) << when;
    EXPECT_TRUE(snapshot_matches_pattern(meta, rows, kBase))
        << when << ": publish " << meta.publish_id;
    shm::CollectorStatus status{};
    ASSERT_EQ(reader.read_status(status), ReadStatus::ok) << when;
    EXPECT_EQ(status.refreshes_total, status_id) << when;
  }

  // A writer started now takes the segment over and continues after publish `id`.
  void expect_taken_over_at(std::uint64_t id, const std::string& when) {
    ScoreTableWriter successor({.name = name_, .capacity = kCapacity});
    EXPECT_TRUE(successor.took_over()) << when;
    EXPECT_EQ(successor.last_publish_id(), id) << when;
  }

  TableName name_{"crash"};
};

TEST_F(ScoreTableCrash, WriterKilledAtEveryPointOfAPublishLeavesTheLastCompleteSnapshot) {
  const std::uint32_t some = kBase / 2;
  const KillPoint points[] = {
      {"index cleared, no entry written", WritePoint::index_cleared, 0},
      {"after the first entry", WritePoint::entry_stored, 1},
      {"halfway through the entries", WritePoint::entry_stored, some},
      {"every entry written, metadata not", WritePoint::entries_stored, 0},
      {"metadata written, sequence not incremented", WritePoint::meta_stored, 0},
      {"sequence incremented (publish complete)", WritePoint::published, 0},
      {"status copy written, status sequence not incremented", WritePoint::status_stored, 0},
  };
  std::uint64_t visible = 1;  // the last complete publish, and the status recorded with it
  int kills = 0;
  for (const KillPoint& at : points) {
    // Once on each copy: the child first completes 0 or 1 publishes, flipping the idle copy.
    for (const std::uint64_t complete_first : {0, 1}) {
      const std::uint64_t next = visible + complete_first + 1;
      const std::string when = std::string("killed at '") + at.what + "' publishing " +
                               std::to_string(next) +
                               (complete_first == 0 ? "" : " after one complete publish");
      ChildProcess<Nothing> writer([&]() -> Nothing {
        bool armed = false;
        ScoreTableWriter w({.name = name_,
                            .capacity = kCapacity,
                            .test_hook = [&](WritePoint point, std::uint32_t stored) {
                              if (armed && point == at.point &&
                                  (point != WritePoint::entry_stored || stored == at.stored)) {
                                ::raise(SIGSTOP);
                              }
                            }});
        if (!w.took_over() || w.last_publish_id() != visible) ::_exit(5);
        for (std::uint64_t id = visible + 1; id < next; ++id) {
          w.publish(pattern_snapshot(id, kBase), 0);
          w.record_status(status_for(id));
        }
        armed = at.point != WritePoint::status_stored;
        w.publish(pattern_snapshot(next, kBase), 0);
        armed = true;
        w.record_status(status_for(next));
        ::_exit(6);  // the hook never stopped the writer
      });
      ASSERT_TRUE(writer.wait_until_stopped())
          << when << ": the writer ended with wait status " << writer.exit_status();

      const bool snapshot_done =
          at.point == WritePoint::published || at.point == WritePoint::status_stored;
      const std::uint64_t expect_id = snapshot_done ? next : next - 1;
      expect_visible(expect_id, next - 1, when + " (stopped)");
      const IdleCopy idle = inspect_idle_copy(name_, next);
      const std::uint32_t nodes = pattern_nodes(next, kBase);
      switch (at.point) {
        case WritePoint::index_cleared:
        case WritePoint::entry_stored:
        case WritePoint::entries_stored:
        case WritePoint::meta_stored: {
          // The idle copy really holds a partial publish: the test stopped the writer mid-way.
          const std::uint32_t written = at.point == WritePoint::index_cleared  ? 0
                                        : at.point == WritePoint::entry_stored ? at.stored
                                                                               : nodes;
          EXPECT_EQ(idle.index_slots_used, written) << when;
          EXPECT_EQ(idle.entries_of_next, written) << when;
          EXPECT_TRUE(idle.entries_are_a_prefix) << when;
          EXPECT_EQ(idle.meta_publish_id == next, at.point == WritePoint::meta_stored) << when;
          break;
        }
        case WritePoint::published:
          EXPECT_NE(idle.meta_publish_id, next)
              << when << ": the published copy must be the visible one";
          break;
        case WritePoint::status_stored:
          EXPECT_EQ(idle.status_refreshes, next)
              << when << ": the new status must be written, unpublished";
          break;
      }

      writer.kill_now();
      std::printf("kill %d: %s\n", ++kills, when.c_str());
      expect_visible(expect_id, next - 1, when);
      expect_taken_over_at(expect_id, when);
      visible = expect_id;
      if (at.point == WritePoint::published) {
        // The killed writer published `next` without its status; record it so later rounds can
        // tell each status apart.
        ScoreTableWriter({.name = name_, .capacity = kCapacity}).record_status(status_for(next));
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
  std::printf("kills=%d, each at its named point; last visible publish %llu\n", kills,
              static_cast<unsigned long long>(visible));

  ScoreTableWriter successor({.name = name_, .capacity = kCapacity});
  ASSERT_TRUE(successor.took_over());
  successor.publish(pattern_snapshot(visible + 1, kBase), 0);
  successor.record_status(status_for(visible + 1));
  expect_visible(visible + 1, visible + 1, "after the last takeover");
}

// Kills at arbitrary instants reach points between the named ones (inside a record, between
// index and entry stores). Where they land is up to the scheduler, so the test reports how many
// were inside a publish but asserts only what must hold wherever they land.
TEST_F(ScoreTableCrash, WriterKilledAtRandomInstantsLeavesTheLastCompleteSnapshot) {
  constexpr std::uint32_t kLargeBase = 2000;
  ScoreTableWriter::remove(name_);
  {
    ScoreTableWriter({.name = name_, .capacity = 4096}).publish(pattern_snapshot(1, kLargeBase), 0);
  }
  ScoreTableReader reader({.name = name_});
  std::mt19937 random(12345);
  constexpr int kKills = 10;
  int inside_publish = 0;
  std::uint64_t visible = 1;
  std::vector<TableRow> rows;
  shm::SnapshotMeta meta{};
  for (int kill = 0; kill < kKills; ++kill) {
    ChildProcess<Nothing> writer([&] {
      ScoreTableWriter w({.name = name_, .capacity = 4096});
      if (!w.took_over()) ::_exit(5);
      // Publishes until killed; the bound only keeps an orphan from running forever.
      for (std::uint64_t id = w.last_publish_id() + 1; id < w.last_publish_id() + 1'000'000; ++id) {
        w.publish(pattern_snapshot(id, kLargeBase), 0);
      }
      return Nothing{};
    });
    // A few publishes in, so the kill meets a writer in its publishing loop.
    ASSERT_TRUE(eventually(
        [&] {
          return reader.lookup({}, {}, meta) == ReadStatus::ok && meta.publish_id >= visible + 2;
        },
        std::chrono::seconds(60)))
        << "writer " << kill << " never published";
    // Not a wait for anything: a random instant, so the kills land at different points.
    const auto kill_at =
        std::chrono::steady_clock::now() + std::chrono::microseconds(random() % 2000);
    while (std::chrono::steady_clock::now() < kill_at) {
    }
    writer.kill_now();

    ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
    EXPECT_TRUE(snapshot_matches_pattern(meta, rows, kLargeBase))
        << "kill " << kill << " publish " << meta.publish_id;
    ASSERT_GE(meta.publish_id, visible + 2);
    visible = meta.publish_id;
    inside_publish += inspect_idle_copy(name_, visible + 1).entries_of_next > 0 ? 1 : 0;
  }
  std::printf("random kills=%d, inside a publish=%d (not asserted: up to the scheduler)\n", kKills,
              inside_publish);

  ScoreTableWriter successor({.name = name_, .capacity = 4096});
  EXPECT_TRUE(successor.took_over());
  EXPECT_EQ(successor.last_publish_id(), visible);
  successor.publish(pattern_snapshot(visible + 1, kLargeBase), 0);
  ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
  EXPECT_EQ(meta.publish_id, visible + 1);
  EXPECT_TRUE(snapshot_matches_pattern(meta, rows, kLargeBase));
}

}  // namespace
}  // namespace netscore::testing
