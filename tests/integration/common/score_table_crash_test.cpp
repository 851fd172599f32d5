// A writer SIGKILLed while publishing must leave readers on the last complete snapshot, and a new
// writer must take the segment over and continue from there.
#include <gtest/gtest.h>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include <chrono>
#include <random>

#include "tests/integration/common/process.h"
#include "tests/integration/common/table_pattern.h"
#include "tests/testing/table_name.h"

namespace netscore::testing {
namespace {

namespace bip = boost::interprocess;
using Clock = std::chrono::steady_clock;

// Large snapshots make each publish take long enough that most kills land inside one.
constexpr std::uint32_t kBase = 4000;
constexpr std::uint32_t kCapacity = 4096;

struct Nothing {};

// True when the copy readers are NOT using holds entries of a publish newer than the visible
// one: the writer has started writing it and not published it yet.
bool publish_in_progress(const std::string& name, std::uint64_t visible_id) {
  bip::shared_memory_object object(bip::open_only, name.c_str(), bip::read_only);
  bip::mapped_region region(object, bip::read_only);
  const auto* header = static_cast<const shm::SegmentHeader*>(region.get_address());
  const auto* words = static_cast<const shm::Word*>(region.get_address());
  const auto layout = shm::compute_layout(header->capacity);
  const std::size_t idle = (header->snapshot_seq.load() + 1) & 1;
  constexpr std::size_t kSampleWord = offsetof(shm::EntryRecord, sample_ms) / 8;
  for (std::uint32_t i = 0; i < layout.capacity; ++i) {
    if (words[layout.entry_word(idle, i) + kSampleWord].load() == visible_id + 1) return true;
  }
  return false;
}

class ScoreTableCrash : public ::testing::Test {
 protected:
  netscore::testing::TableName name_{"crash"};
};

TEST_F(ScoreTableCrash, KilledWriterLeavesLastCompleteSnapshotAndCanBeTakenOver) {
  { ScoreTableWriter({name_, kCapacity, 0600, false}).publish(pattern_snapshot(1, kBase), 0); }
  ScoreTableReader reader({name_, false, 64});
  std::mt19937 random(12345);
  constexpr int kKills = 20;
  int mid_publish_kills = 0;
  std::uint64_t visible = 1;
  std::vector<TableRow> rows;
  shm::SnapshotMeta meta{};
  for (int kill = 0; kill < kKills; ++kill) {
    ChildProcess<Nothing> writer([&] {
      ScoreTableWriter w({name_, kCapacity, 0600, false});
      if (!w.took_over()) std::abort();
      const auto deadline = Clock::now() + std::chrono::seconds(30);
      for (std::uint64_t id = w.last_publish_id() + 1; Clock::now() < deadline; ++id) {
        w.publish(pattern_snapshot(id, kBase), 0);
      }
      return Nothing{};
    });
    // Let it publish a few snapshots, then kill it once it is seen writing the next one, after
    // a random extra delay so the kills land at different points of the publish.
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    bool writing = false;
    while (!writing && Clock::now() < deadline) {
      ASSERT_NE(reader.lookup({}, {}, meta), ReadStatus::empty);
      writing = meta.publish_id >= visible + 3 && publish_in_progress(name_, meta.publish_id);
    }
    ASSERT_TRUE(writing) << "writer " << kill << " was never seen publishing";
    const auto spin_until = Clock::now() + std::chrono::microseconds(random() % 200);
    while (Clock::now() < spin_until) {
    }
    writer.kill_now();

    ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
    EXPECT_TRUE(snapshot_matches_pattern(meta, rows, kBase)) << "kill " << kill << " publish " << meta.publish_id;
    ASSERT_GE(meta.publish_id, visible);
    visible = meta.publish_id;
    mid_publish_kills += publish_in_progress(name_, visible) ? 1 : 0;
  }
  std::printf("kills=%d mid_publish=%d last_visible=%llu\n", kKills, mid_publish_kills,
              static_cast<unsigned long long>(visible));
  EXPECT_GE(mid_publish_kills, kKills / 4) << "the kills did not land inside publishes; the test proves little";

  ScoreTableWriter successor({name_, kCapacity, 0600, false});
  EXPECT_TRUE(successor.took_over());
  EXPECT_EQ(successor.last_publish_id(), visible);
  successor.publish(pattern_snapshot(visible + 1, kBase), 0);
  ASSERT_EQ(reader.read_all(rows, meta), ReadStatus::ok);
  EXPECT_EQ(meta.publish_id, visible + 1);
  EXPECT_TRUE(snapshot_matches_pattern(meta, rows, kBase));
}

}  // namespace
}  // namespace netscore::testing
