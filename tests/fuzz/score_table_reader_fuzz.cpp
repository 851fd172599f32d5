// A corrupt or hostile segment must never crash a reader or make it loop: the fuzz input becomes
// the segment's payload (and, when the first byte says so, its header), then every read path runs.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/table/score_table_reader.h"
#include "tests/support/scratch_table.h"

namespace {

constexpr std::uint32_t kCapacity = 4;

bool forge_segment(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const auto layout = netscore::shm::compute_layout(kCapacity);
  const int fd = ::shm_open(("/" + name).c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(layout.segment_bytes)) != 0) return false;
  void* p = ::mmap(nullptr, layout.segment_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  auto* bytes = static_cast<std::uint8_t*>(p);
  const bool corrupt_header = size > 0 && (data[0] & 1) != 0;
  const std::size_t payload_from = corrupt_header ? 0 : sizeof(netscore::shm::SegmentHeader);
  if (!corrupt_header) {
    auto* h = new (p) netscore::shm::SegmentHeader{};
    h->magic.store(netscore::shm::kMagic);
    h->layout_version = netscore::shm::kLayoutVersion;
    h->segment_bytes = layout.segment_bytes;
    h->capacity = kCapacity;
    h->index_slots = layout.index_slots;
    for (int c = 0; c < 2; ++c) {
      h->status_offset[c] = layout.status_offset[c];
      h->snapshot_offset[c] = layout.snapshot_offset[c];
    }
    h->placements_offset = layout.placements_offset;
    h->snapshot_seq.store(size > 1 ? data[1] : 1);
    h->status_seq.store(size > 2 ? data[2] : 1);
    h->placements_written.store(size > 3 ? std::uint64_t{data[3]} << (data[3] % 57) : 1);
  }
  // The input repeats over the rest of the segment so short inputs still reach every entry.
  for (std::size_t at = payload_from, i = 0; size > 0 && at < layout.segment_bytes;
       ++at, i = (i + 1) % size) {
    bytes[at] = data[i];
  }
  ::munmap(p, layout.segment_bytes);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One segment per fuzzing process, unlinked at exit.
  static const netscore::testing::ScratchTable segment("fuzz-reader");
  const std::string& name = segment.str();
  if (!forge_segment(name, data, size)) std::abort();
  try {
    const netscore::ScoreTableReader reader({.name = name, .max_retries = 2});
    const std::vector<std::string_view> names{"node-a", "", std::string_view("\0\0\0\0\0\0\0\0", 8),
                                              "a-much-longer-node-name.example.internal"};
    std::vector<netscore::NodeScore> out(names.size());
    netscore::shm::SnapshotMeta meta{};
    reader.lookup(names, out, meta);
    std::vector<netscore::TableRow> rows;
    if (reader.read_all(rows, meta) == netscore::ReadStatus::ok && rows.size() > kCapacity)
      std::abort();
    for (const auto& row : rows) {
      if (row.name.size() > netscore::shm::kMaxNameBytes) std::abort();
    }
    netscore::shm::CollectorStatus status{};
    if (reader.read_status(status) == netscore::ReadStatus::ok &&
        std::strlen(status.last_error) >= sizeof(status.last_error)) {
      std::abort();
    }
    const auto placements = reader.read_placements();
    if (placements.size() > netscore::shm::kPlacementSlots) std::abort();
    for (const auto& r : placements) {
      if (r.node_len > netscore::shm::kMaxNameBytes) std::abort();
    }
  } catch (const netscore::shm::TableError&) {
  }
  return 0;
}
