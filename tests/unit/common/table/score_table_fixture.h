#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <string>
#include <utility>

#include "common/table/score_table_layout.h"
#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "tests/support/table_name.h"

// The scratch table the writer's and the reader's tests share, and segments forged by hand.
namespace netscore {

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

}  // namespace netscore
