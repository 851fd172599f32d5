#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/interprocess/mapped_region.hpp>

#include "common/table/score_table_layout.h"

namespace netscore {

using model::NodeScore;

struct TableRow {
  std::string name;
  NodeScore score;
};

using ReadStatus = seqlock::ReadStatus;

// Read-only view of a score table written by ScoreTableWriter, possibly in another process.
// Lock-free and wait-free for the writer; a read retries a bounded number of times when a publish
// overlaps it. Not thread-safe to share across threads only because of poll-style owners; the
// read methods themselves are const and may be called concurrently.
class ScoreTableReader {
 public:
  struct Options {
    std::string name;
    unsigned max_retries = 64;
  };

  // Maps the segment read-only and validates it: size, magic, layout version, and that every
  // offset in the header is the one the capacity implies. Throws shm::TableError with the reason.
  explicit ScoreTableReader(const Options& options);

  // Looks up every name (no allocation): out[i] answers names[i] from one consistent snapshot,
  // described by `meta`. Unknown names come back with found = false.
  ReadStatus lookup(std::span<const std::string_view> names, std::span<NodeScore> out,
                    shm::SnapshotMeta& meta) const noexcept;
  // The same with hashes[i] == shm::name_hash(names[i]) already known (the extender computes them
  // for its duplicate check).
  ReadStatus lookup(std::span<const std::string_view> names, std::span<const std::uint64_t> hashes,
                    std::span<NodeScore> out, shm::SnapshotMeta& meta) const noexcept;

  // Every entry of one consistent snapshot, in the writer's order (for /table).
  ReadStatus read_all(std::vector<TableRow>& rows, shm::SnapshotMeta& meta) const;

  ReadStatus read_status(shm::CollectorStatus& status) const noexcept;

  // The recent placements the ring holds, oldest first, each read whole: a slot being written or
  // overwritten meanwhile is left out.
  std::vector<shm::PlacementRecord> read_placements() const;

  // True when the name now refers to another segment (the collector recreated it) or to none.
  // One shm_open + fstat: call it from a timer, not per request.
  bool superseded() const noexcept;

  const shm::Layout& layout() const noexcept { return layout_; }
  const std::string& name() const noexcept { return name_; }

 private:
  const shm::Word* words() const noexcept {
    return static_cast<const shm::Word*>(region_.get_address());
  }
  const shm::SegmentHeader& header() const noexcept {
    return *static_cast<const shm::SegmentHeader*>(region_.get_address());
  }
  // Into `result` directly: returning it would copy each answer once more through the stack.
  // `count`: the snapshot's entries (its node count, at most the capacity).
  void find(std::size_t copy, std::uint32_t count, std::string_view name, std::uint64_t hash,
            NodeScore& result) const noexcept;
  // hashes empty: computed here.
  ReadStatus lookup_impl(std::span<const std::string_view> names,
                         std::span<const std::uint64_t> hashes, std::span<NodeScore> out,
                         shm::SnapshotMeta& meta) const noexcept;

  std::string name_;
  unsigned max_retries_;
  boost::interprocess::mapped_region region_;
  shm::Layout layout_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
};

// Keeps a reader attached across collector restarts. One per thread; poll() from a timer.
class TableAttachment {
 public:
  explicit TableAttachment(ScoreTableReader::Options options) : options_(std::move(options)) {}

  // Attaches if detached; re-attaches if the table was recreated. Returns true when the reader
  // changed. Failures are kept in last_error() and retried on the next poll.
  bool poll();
  const ScoreTableReader* reader() const noexcept { return reader_ ? &*reader_ : nullptr; }
  const std::string& last_error() const noexcept { return last_error_; }

 private:
  ScoreTableReader::Options options_;
  std::optional<ScoreTableReader> reader_;
  std::string last_error_;
};

}  // namespace netscore
