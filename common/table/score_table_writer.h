#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include "common/clock.h"
#include "common/table/score_table_layout.h"

namespace netscore {

using model::SnapshotInfo;
using model::TableEntry;

// Points inside publish() and record_status() where a test can stop the writer (see
// ScoreTableWriter::Options::test_hook).
enum class WritePoint {
  index_cleared,   // publish: the idle copy's index is zeroed (kept when only figures are
                   // rewritten), no entry written yet
  entry_stored,    // publish: one more entry is in the idle copy (the hook gets the count so far)
  entries_stored,  // publish: every entry is written, the snapshot metadata not yet
  meta_stored,     // publish: the metadata is written, the sequence not yet incremented
  published,       // publish: the sequence is incremented, the snapshot is visible
  status_stored,   // record_status: the idle copy is written, the sequence not yet incremented
};

struct PublishCounts {
  std::uint32_t stored = 0;
  std::uint32_t overflow = 0;
  std::uint32_t rejected = 0;
};

// The single writer of a score table (the collector). Not thread-safe: one thread publishes.
// Process-safe: an exclusive flock on the segment keeps a second collector out, and the kernel
// drops the lock when the holder dies, so a restarted collector takes the segment over and keeps
// serving the last snapshot it finds there.
class ScoreTableWriter {
 public:
  struct Options {
    std::string name;
    std::uint32_t capacity = 16384;
    unsigned mode = 0600;
    // Test-only: write into the copy readers are using, to prove the stress test catches torn
    // reads. Never set outside tests.
    bool unsafe_write_active_copy = false;
    // Test-only: called at each WritePoint with the entries stored so far, so the crash and
    // stress tests can stop (SIGSTOP) and kill a writer at a chosen point of a publish instead of
    // hoping a timed kill lands there. Never set outside tests; unset, it costs one predictable
    // branch per entry (no measurable change in score_table_bench's publish).
    std::function<void(WritePoint, std::uint32_t stored)> test_hook = {};
    // What publish() stamps a snapshot with (its freshness is judged on the monotonic one).
    Clocks clocks{};
  };

  // Opens (takes over) a compatible segment or creates a new one: exclusive create with `mode`,
  // posix_fallocate (a full /dev/shm fails here with ENOSPC instead of SIGBUS later), zeroed, magic
  // written last. Throws shm::TableError with the reason.
  explicit ScoreTableWriter(Options options);
  ScoreTableWriter(const ScoreTableWriter&) = delete;
  ScoreTableWriter& operator=(const ScoreTableWriter&) = delete;

  // Publishes a complete snapshot: entries beyond the capacity are counted as overflow, names
  // longer than 253 bytes or duplicated as rejected; never writes out of bounds.
  PublishCounts publish(std::span<const TableEntry> entries, std::int64_t eval_time_ms);
  PublishCounts publish(std::span<const TableEntry> entries, const SnapshotInfo& info);
  void record_status(const shm::CollectorStatus& status);
  // Appends one record to the ring of recent placements, over its oldest; sets its number.
  void record_placement(const shm::PlacementRecord& record);

  bool took_over() const { return took_over_; }
  std::uint64_t last_publish_id() const { return publish_id_; }
  std::uint64_t placements_written() const {
    return header().placements_written.load(std::memory_order_relaxed);
  }
  const shm::Layout& layout() const { return layout_; }

  static bool remove(const std::string& name);

 private:
  shm::Word* words() const { return static_cast<shm::Word*>(region_.get_address()); }
  shm::SegmentHeader& header() const {
    return *static_cast<shm::SegmentHeader*>(region_.get_address());
  }
  // What this writer last stored in one copy, so that a publish of the same names in the same
  // order (a republish after a binding, or a refresh of an unchanged cluster) rewrites only the
  // figures that changed instead of the index, the names and every record.
  struct CopyShadow {
    bool complete = false;  // every entry stored at its own position
    std::vector<std::string> names;
    std::vector<model::NodeFigures> figures;
    bool holds_names_of(std::span<const TableEntry> entries) const;
  };

  PublishCounts write_entries(std::size_t copy, std::span<const TableEntry> entries,
                              shm::SnapshotMeta& meta);
  PublishCounts rewrite_figures(std::size_t copy, std::span<const TableEntry> entries,
                                shm::SnapshotMeta& meta);
  bool try_take_over(const std::string& name);
  void create(const std::string& name);
  void reached(WritePoint point, std::uint32_t stored) const {
    if (options_.test_hook) [[unlikely]]
      options_.test_hook(point, stored);
  }

  Options options_;
  shm::Layout layout_;
  boost::interprocess::shared_memory_object shm_;
  boost::interprocess::mapped_region region_;
  std::uint64_t publish_id_ = 0;
  bool took_over_ = false;
  CopyShadow shadows_[2];  // empty after a take-over: the first publishes write everything
};

}  // namespace netscore
