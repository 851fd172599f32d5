#include "common/table/score_table_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

namespace netscore {

namespace bip = boost::interprocess;
using shm::TableError;

ScoreTableReader::ScoreTableReader(const Options& options)
    : name_(options.name), max_retries_(std::max(1U, options.max_retries)) {
  const std::string what = "shared memory /dev/shm/" + name_;
  bip::shared_memory_object object;
  try {
    object = bip::shared_memory_object(bip::open_only, name_.c_str(), bip::read_only);
  } catch (const bip::interprocess_exception& e) {
    throw TableError("cannot open " + what + ": " + e.what());
  }
  struct stat st {};
  if (::fstat(object.get_mapping_handle().handle, &st) != 0)
    throw TableError("cannot stat " + what);
  // Whoever owns the table writes the scores: only our own UID's are trusted.
  if (st.st_uid != ::geteuid()) {
    throw TableError(what + " is owned by uid " + std::to_string(st.st_uid) + ", not " +
                     std::to_string(::geteuid()) + " (run the collector as the same UID)");
  }
  if (static_cast<std::size_t>(st.st_size) < sizeof(shm::SegmentHeader)) {
    throw TableError(what + " is " + std::to_string(st.st_size) +
                     " bytes: not a score table (yet)");
  }
  device_ = st.st_dev;
  inode_ = st.st_ino;
  region_ = bip::mapped_region(object, bip::read_only);

  const auto& h = header();
  if (h.magic.load(std::memory_order_acquire) != shm::kMagic) {
    throw TableError(what + " has no netscore magic: not initialised yet, or not a score table");
  }
  if (h.layout_version != shm::kLayoutVersion) {
    throw TableError(what + " has layout version " + std::to_string(h.layout_version) +
                     ", this build reads " + std::to_string(shm::kLayoutVersion));
  }
  if (h.capacity == 0 || h.capacity > shm::kMaxCapacity) {
    throw TableError(what + " claims capacity " + std::to_string(h.capacity));
  }
  layout_ = shm::compute_layout(h.capacity);
  bool offsets_match = h.index_slots == layout_.index_slots;
  for (std::size_t c = 0; c < 2; ++c) {
    offsets_match = offsets_match && h.status_offset[c] == layout_.status_offset[c] &&
                    h.snapshot_offset[c] == layout_.snapshot_offset[c];
  }
  offsets_match = offsets_match && h.placements_offset == layout_.placements_offset;
  if (h.segment_bytes != layout_.segment_bytes || region_.get_size() < layout_.segment_bytes ||
      !offsets_match) {
    throw TableError(what + " size or offsets do not match its capacity " +
                     std::to_string(h.capacity) + " (mapped " + std::to_string(region_.get_size()) +
                     " bytes, expected " + std::to_string(layout_.segment_bytes) + ")");
  }
}

void ScoreTableReader::find(std::size_t copy, std::uint32_t count, std::string_view name,
                            std::uint64_t hash, NodeScore& result) const noexcept {
  result = NodeScore{};
  if (name.empty() || name.size() > shm::kMaxNameBytes) return;
  const shm::Word* w = words();
  const std::size_t index = layout_.index_word(copy);
  const std::uint32_t mask = layout_.index_slots - 1;
  std::uint32_t pos = static_cast<std::uint32_t>(hash) & mask;
  // Bounded by the slot count: a torn index can never make this loop forever.
  for (std::uint32_t probe = 0; probe < layout_.index_slots; ++probe, pos = (pos + 1) & mask) {
    const std::uint64_t slot = w[index + pos].load(std::memory_order_acquire);
    if (slot == 0) return;
    const std::uint64_t entry = shm::index_entry(slot);
    if ((slot >> 32) != (hash >> 32) || entry >= count) continue;
    const shm::Word* e = w + layout_.entry_word(copy, entry);
    if (e[0].load(std::memory_order_acquire) != hash) continue;
    static_assert(offsetof(shm::EntryRecord, name_len) == 8);  // the low half of word 1
    if ((e[1].load(std::memory_order_acquire) & 0xFFFFFFFFU) != name.size()) continue;
    constexpr std::size_t kNameWord = offsetof(shm::EntryRecord, name) / 8;
    bool same = true;
    for (std::size_t at = 0; same && at < name.size(); at += 8) {
      same = e[kNameWord + at / 8].load(std::memory_order_acquire) == shm::name_chunk(name, at);
    }
    if (!same) continue;
    constexpr std::size_t kFiguresWord = offsetof(shm::EntryRecord, figures) / 8;
    seqlock::load(e + kFiguresWord, static_cast<shm::NodeFigures&>(result));
    result.found = true;
    return;
  }
}

ReadStatus ScoreTableReader::lookup(std::span<const std::string_view> names,
                                    std::span<NodeScore> out,
                                    shm::SnapshotMeta& meta) const noexcept {
  return lookup_impl(names, {}, out, meta);
}

ReadStatus ScoreTableReader::lookup(std::span<const std::string_view> names,
                                    std::span<const std::uint64_t> hashes, std::span<NodeScore> out,
                                    shm::SnapshotMeta& meta) const noexcept {
  return lookup_impl(
      names, hashes.size() >= names.size() ? hashes : std::span<const std::uint64_t>{}, out, meta);
}

ReadStatus ScoreTableReader::lookup_impl(std::span<const std::string_view> names,
                                         std::span<const std::uint64_t> known_hashes,
                                         std::span<NodeScore> out,
                                         shm::SnapshotMeta& meta) const noexcept {
  return seqlock::Latch::read(header().snapshot_seq, max_retries_, [&](std::size_t copy) {
    seqlock::load(words() + layout_.snapshot_offset[copy] / 8, meta);
    const std::size_t n = std::min(names.size(), out.size());
    const shm::Word* index = words() + layout_.index_word(copy);
    const std::uint32_t mask = layout_.index_slots - 1;
    const std::uint32_t count = std::min(meta.node_count, layout_.capacity);
    // Batches of names, in two prefetch passes before probing: a group's index slots, then the
    // records their first slots name (key, figures, and the name's first 32 bytes: most node
    // names whole). Between two of kube-scheduler's calls its own work evicts the table, so each
    // lookup would otherwise wait for two cache misses in turn; batched, a group's misses overlap.
    // The slot read here is only a hint: find() reads it again in order.
    constexpr std::size_t kGroup = 32;
    std::uint64_t hashes[kGroup];
    for (std::size_t first = 0; first < n; first += kGroup) {
      const std::size_t group = std::min(kGroup, n - first);
      for (std::size_t j = 0; j < group; ++j) {
        hashes[j] =
            known_hashes.empty() ? shm::name_hash(names[first + j]) : known_hashes[first + j];
        __builtin_prefetch(index + (hashes[j] & mask));
      }
      for (std::size_t j = 0; j < group; ++j) {
        const std::uint64_t entry =
            shm::index_entry(index[hashes[j] & mask].load(std::memory_order_relaxed));
        if (entry >= count) continue;
        const auto* record =
            reinterpret_cast<const char*>(words() + layout_.entry_word(copy, entry));
        constexpr std::size_t kNameEnd = offsetof(shm::EntryRecord, name) + 32;
        for (std::size_t at = 0; at < kNameEnd; at += shm::kCacheLine)
          __builtin_prefetch(record + at);
        __builtin_prefetch(record + kNameEnd - 1);
      }
      for (std::size_t j = 0; j < group; ++j)
        find(copy, count, names[first + j], hashes[j], out[first + j]);
    }
  });
}

ReadStatus ScoreTableReader::read_all(std::vector<TableRow>& rows, shm::SnapshotMeta& meta) const {
  shm::EntryRecord record{};
  return seqlock::Latch::read(header().snapshot_seq, max_retries_, [&](std::size_t copy) {
    seqlock::load(words() + layout_.snapshot_offset[copy] / 8, meta);
    const std::uint32_t count = std::min(meta.node_count, layout_.capacity);
    rows.clear();
    rows.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      seqlock::load(words() + layout_.entry_word(copy, i), record);
      TableRow row;
      row.name.assign(record.name, std::min<std::size_t>(record.name_len, shm::kMaxNameBytes));
      static_cast<shm::NodeFigures&>(row.score) = record.figures;
      row.score.found = true;
      rows.push_back(std::move(row));
    }
  });
}

ReadStatus ScoreTableReader::read_status(shm::CollectorStatus& status) const noexcept {
  const ReadStatus result = seqlock::Latch::read(
      header().status_seq, max_retries_,
      [&](std::size_t copy) { seqlock::load(words() + layout_.status_offset[copy] / 8, status); });
  if (result == ReadStatus::ok) {
    // Strings from another process are terminated here, so callers can use them as C strings.
    status.last_error[shm::kErrorBytes - 1] = '\0';
    status.diagnosis[shm::kDiagnosisBytes - 1] = '\0';
    status.watch_resource_version[shm::kResourceVersionBytes - 1] = '\0';
    status.watch_error[shm::kErrorBytes - 1] = '\0';
  }
  return result;
}

std::vector<shm::PlacementRecord> ScoreTableReader::read_placements() const {
  const std::uint64_t written = header().placements_written.load(std::memory_order_acquire);
  const std::uint64_t first =
      written > shm::kPlacementSlots ? written - shm::kPlacementSlots + 1 : 1;
  std::vector<shm::PlacementRecord> out;
  out.reserve(static_cast<std::size_t>(written - first + 1));
  shm::PlacementRecord record{};
  for (std::uint64_t number = first; number <= written; ++number) {
    const shm::Word* slot = words() + layout_.placement_word(number);
    const ReadStatus status = seqlock::read_retrying(slot[0], max_retries_, [&](std::uint64_t seq) {
      if ((seq & 1) != 0) return false;
      seqlock::load(slot + 1, record);
      return true;
    });
    if (status != ReadStatus::ok || record.number != number) continue;
    record.node_len = std::min<std::uint32_t>(record.node_len, shm::kMaxNameBytes);
    out.push_back(record);
  }
  return out;
}

bool ScoreTableReader::superseded() const noexcept {
  const std::string path = "/" + name_;
  const int fd = ::shm_open(path.c_str(), O_RDONLY, 0);
  if (fd < 0) return true;
  struct stat st {};
  const bool same = ::fstat(fd, &st) == 0 && st.st_dev == device_ && st.st_ino == inode_;
  ::close(fd);
  return !same;
}

bool TableAttachment::poll() {
  if (reader_ && !reader_->superseded()) return false;
  try {
    // Construct first: a failed attach must not drop the reader that still works.
    std::optional<ScoreTableReader> fresh;
    fresh.emplace(options_);
    reader_ = std::move(fresh);
    last_error_.clear();
    return true;
  } catch (const shm::TableError& e) {
    // Keep serving from the old mapping until a valid new one exists: a collector that is
    // recreating the table is briefly mid-initialisation.
    last_error_ = e.what();
    return false;
  }
}

}  // namespace netscore
