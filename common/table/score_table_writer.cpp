#include "common/table/score_table_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include <boost/interprocess/exceptions.hpp>

#include "common/clock.h"

namespace netscore {

namespace bip = boost::interprocess;
using shm::TableError;

namespace {

int fd_of(const bip::shared_memory_object& object) {
  return object.get_mapping_handle().handle;
}

std::string describe(const std::string& name) {
  return "shared memory /dev/shm/" + name;
}

void count_entry(shm::SnapshotMeta& meta, const TableEntry& entry) {
  if (entry.valid()) {
    ++meta.valid_count;
    meta.max_raw_score = std::max(meta.max_raw_score, entry.raw_score);
    meta.max_corrected_raw_score =
        std::max(meta.max_corrected_raw_score, entry.corrected_raw_score);
  }
  if ((entry.flags & shm::kEntryInCluster) != 0) ++meta.in_cluster_count;
}

}  // namespace

ScoreTableWriter::ScoreTableWriter(Options options)
    : options_(std::move(options)), layout_(shm::compute_layout(options_.capacity)) {
  if (!try_take_over(options_.name)) create(options_.name);
}

bool ScoreTableWriter::try_take_over(const std::string& name) {
  bip::shared_memory_object existing;
  try {
    existing = bip::shared_memory_object(bip::open_only, name.c_str(), bip::read_write);
  } catch (const bip::interprocess_exception&) {
    return false;  // nothing there (or not ours to open): create() reports the real problem
  }
  if (::flock(fd_of(existing), LOCK_EX | LOCK_NB) != 0) {
    throw TableError(describe(name) + " is locked by another running collector");
  }
  bip::offset_t size = 0;
  existing.get_size(size);
  if (static_cast<std::size_t>(size) == layout_.segment_bytes) {
    bip::mapped_region region(existing, bip::read_write);
    auto& h = *static_cast<shm::SegmentHeader*>(region.get_address());
    if (h.magic.load(std::memory_order_acquire) == shm::kMagic &&
        h.layout_version == shm::kLayoutVersion && h.capacity == layout_.capacity &&
        h.index_slots == layout_.index_slots) {
      ::fchmod(fd_of(existing), options_.mode);
      shm_ = std::move(existing);
      region_ = std::move(region);
      const auto seq = header().snapshot_seq.load(std::memory_order_acquire);
      if (seq != 0) {
        shm::SnapshotMeta meta{};
        seqlock::load(words() + layout_.snapshot_offset[seq & 1] / 8, meta);
        publish_id_ = meta.publish_id;
      }
      took_over_ = true;
      return true;
    }
  }
  // Incompatible (other capacity, version, or a half-initialised segment of a collector killed
  // during start-up): readers still mapping it see the name point elsewhere and re-attach.
  bip::shared_memory_object::remove(name.c_str());
  return false;
}

void ScoreTableWriter::create(const std::string& name) {
  try {
    shm_ = bip::shared_memory_object(bip::create_only, name.c_str(), bip::read_write,
                                     bip::permissions(static_cast<int>(options_.mode)));
  } catch (const bip::interprocess_exception& e) {
    throw TableError("cannot create " + describe(name) + ": " + e.what());
  }
  const int fd = fd_of(shm_);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    throw TableError(describe(name) + " is locked by another running collector");
  }
  if (const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(layout_.segment_bytes)); rc != 0) {
    bip::shared_memory_object::remove(name.c_str());
    throw TableError("cannot allocate " + std::to_string(layout_.segment_bytes) + " bytes for " +
                     describe(name) + ": " + std::strerror(rc));
  }
  region_ = bip::mapped_region(shm_, bip::read_write);
  std::uninitialized_value_construct_n(words(), layout_.segment_bytes / sizeof(shm::Word));
  auto& h = header();
  h.layout_version = shm::kLayoutVersion;
  h.header_bytes = sizeof(shm::SegmentHeader);
  h.segment_bytes = layout_.segment_bytes;
  h.capacity = layout_.capacity;
  h.index_slots = layout_.index_slots;
  for (std::size_t c = 0; c < 2; ++c) {
    h.status_offset[c] = layout_.status_offset[c];
    h.snapshot_offset[c] = layout_.snapshot_offset[c];
  }
  h.placements_offset = layout_.placements_offset;
  h.created_wall_ms = options_.clocks.wall_ms();
  // Last: a reader that sees the magic (acquire) sees every field above.
  h.magic.store(shm::kMagic, std::memory_order_release);
}

PublishCounts ScoreTableWriter::publish(std::span<const TableEntry> entries,
                                        std::int64_t eval_time_ms) {
  return publish(entries, SnapshotInfo{.eval_time_ms = eval_time_ms});
}

PublishCounts ScoreTableWriter::publish(std::span<const TableEntry> entries,
                                        const SnapshotInfo& info) {
  auto& seq = header().snapshot_seq;
  const std::size_t idle = seqlock::Latch::idle_copy(seq);
  const std::size_t copy = options_.unsafe_write_active_copy ? 1 - idle : idle;
  CopyShadow& shadow = shadows_[copy];
  const bool same_names = !options_.unsafe_write_active_copy && shadow.holds_names_of(entries);
  shm::SnapshotMeta meta{};
  const PublishCounts counts =
      same_names ? rewrite_figures(copy, entries, meta) : write_entries(copy, entries, meta);
  reached(WritePoint::entries_stored, counts.stored);

  meta.publish_id = ++publish_id_;
  meta.published_wall_ms = options_.clocks.wall_ms();
  meta.published_mono_ns = options_.clocks.mono_ns();
  meta.eval_time_ms = info.eval_time_ms;
  meta.flags = info.flags;
  meta.rules_hash = info.rules_hash;
  meta.pod_price = info.pod_price;
  meta.basis = static_cast<std::uint32_t>(info.basis);
  meta.direction = static_cast<std::uint32_t>(info.direction);
  meta.pod_rate = info.pod_rate;
  meta.node_count = counts.stored;
  meta.overflow = counts.overflow;
  meta.rejected = counts.rejected;
  seqlock::store(words() + layout_.snapshot_offset[copy] / 8, meta);
  reached(WritePoint::meta_stored, counts.stored);
  seqlock::Latch::publish(seq);
  // The unsafe mode puts readers back on the copy it just scribbled over.
  if (options_.unsafe_write_active_copy) seqlock::Latch::publish(seq);
  reached(WritePoint::published, counts.stored);
  return counts;
}

bool ScoreTableWriter::CopyShadow::holds_names_of(std::span<const TableEntry> entries) const {
  if (!complete || names.size() != entries.size()) return false;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (names[i] != entries[i].name) return false;
  return true;
}

PublishCounts ScoreTableWriter::write_entries(std::size_t copy, std::span<const TableEntry> entries,
                                              shm::SnapshotMeta& meta) {
  shm::Word* w = words();
  const std::size_t index = layout_.index_word(copy);
  const std::uint32_t mask = layout_.index_slots - 1;
  CopyShadow& shadow = shadows_[copy];
  // Forgotten first: a publish stopped half-way leaves the copy holding neither list.
  shadow.complete = false;
  shadow.names.clear();
  shadow.figures.clear();

  for (std::size_t i = 0; i < layout_.index_slots; ++i)
    w[index + i].store(0, std::memory_order_release);
  reached(WritePoint::index_cleared, 0);

  // Names of the entries stored so far, by slot, to detect duplicates without reading back.
  std::vector<const std::string*> stored_names;
  stored_names.reserve(std::min<std::size_t>(entries.size(), layout_.capacity));
  PublishCounts counts;
  shm::EntryRecord record{};
  for (const auto& entry : entries) {
    if (entry.name.empty() || entry.name.size() > shm::kMaxNameBytes) {
      ++counts.rejected;
      continue;
    }
    if (counts.stored == layout_.capacity) {
      ++counts.overflow;
      continue;
    }
    const std::uint64_t hash = shm::name_hash(entry.name);
    std::uint32_t pos = static_cast<std::uint32_t>(hash) & mask;
    bool duplicate = false;
    for (std::uint64_t slot; (slot = w[index + pos].load(std::memory_order_relaxed)) != 0;
         pos = (pos + 1) & mask) {
      if ((slot >> 32) == (hash >> 32) && *stored_names[shm::index_entry(slot)] == entry.name) {
        duplicate = true;
        break;
      }
    }
    if (duplicate) {
      ++counts.rejected;
      continue;
    }
    std::memset(record.name, 0, sizeof(record.name));
    std::memcpy(record.name, entry.name.data(), entry.name.size());
    record.hash = hash;
    record.name_len = static_cast<std::uint32_t>(entry.name.size());
    record.figures = entry;
    seqlock::store(w + layout_.entry_word(copy, counts.stored), record);
    w[index + pos].store(shm::index_slot(hash, counts.stored), std::memory_order_release);
    stored_names.push_back(&entry.name);
    count_entry(meta, entry);
    ++counts.stored;
    reached(WritePoint::entry_stored, counts.stored);
  }
  // Only a copy holding every entry at its own position can be rewritten figures alone.
  if (counts.rejected == 0 && counts.overflow == 0) {
    shadow.names.reserve(entries.size());
    shadow.figures.reserve(entries.size());
    for (const auto& entry : entries) {
      shadow.names.push_back(entry.name);
      shadow.figures.push_back(entry);
    }
    shadow.complete = true;
  }
  return counts;
}

PublishCounts ScoreTableWriter::rewrite_figures(std::size_t copy,
                                                std::span<const TableEntry> entries,
                                                shm::SnapshotMeta& meta) {
  shm::Word* w = words();
  CopyShadow& shadow = shadows_[copy];
  constexpr std::size_t kFiguresWord = offsetof(shm::EntryRecord, figures) / 8;
  reached(WritePoint::index_cleared, 0);
  PublishCounts counts;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const model::NodeFigures& figures = entries[i];
    // Records are written as the figures' bytes: equal bytes need no store.
    if (std::memcmp(&shadow.figures[i], &figures, sizeof(model::NodeFigures)) != 0) {
      seqlock::store(w + layout_.entry_word(copy, i) + kFiguresWord, figures);
      shadow.figures[i] = figures;
    }
    count_entry(meta, entries[i]);
    ++counts.stored;
    reached(WritePoint::entry_stored, counts.stored);
  }
  return counts;
}

void ScoreTableWriter::record_status(const shm::CollectorStatus& status) {
  auto& seq = header().status_seq;
  seqlock::store(words() + layout_.status_offset[seqlock::Latch::idle_copy(seq)] / 8, status);
  reached(WritePoint::status_stored, 0);
  seqlock::Latch::publish(seq);
}

void ScoreTableWriter::record_placement(const shm::PlacementRecord& record) {
  auto& written = header().placements_written;
  shm::PlacementRecord stored = record;
  stored.number = written.load(std::memory_order_relaxed) + 1;
  shm::Word* slot = words() + layout_.placement_word(stored.number);
  std::uint64_t seq = slot[0].load(std::memory_order_relaxed);
  seq += seq & 1;  // left odd by a writer killed while writing it
  // Odd while written: the payload's release stores come after it, so a reader that loads any of
  // them sees the slot's sequence move (seqlock.h).
  slot[0].store(seq + 1, std::memory_order_relaxed);
  seqlock::store(slot + 1, stored);
  slot[0].store(seq + 2, std::memory_order_release);
  written.store(stored.number, std::memory_order_release);
}

bool ScoreTableWriter::remove(const std::string& name) {
  return bip::shared_memory_object::remove(name.c_str());
}

}  // namespace netscore
