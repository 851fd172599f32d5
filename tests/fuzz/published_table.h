#pragma once

#include <string>
#include <vector>

#include "common/table/score_table_writer.h"
#include "tests/support/scratch_table.h"

namespace netscore::fuzz {

// One real score table per fuzzing process, a scratch table removed at exit, holding
// what the collector publishes: an idle, a busy and a heavy node, a non-ASCII name and an invalid
// entry, so request lookups hit, miss and meet every score path. Not thread-safe (fuzz targets run
// one input at a time).
struct PublishedTable {
  testing::ScratchTable name{"fuzz"};
  ScoreTableWriter writer{{.name = name, .capacity = 64}};
  TableAttachment attached{{name, 64}};

  PublishedTable() {
    const std::vector<TableEntry> entries = {{{.raw = 0.0,
                                               .raw_score = 0,
                                               .node_score = 100,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 0,
                                               .corrected_node_score = 100,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "node-a"},
                                             {{.raw = 1.5e6,
                                               .raw_score = 1'500'000,
                                               .node_score = 70,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 1'500'000,
                                               .corrected_node_score = 70,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "node-b"},
                                             {{.raw = 5e9,
                                               .raw_score = 5'000'000'000,
                                               .node_score = 0,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 5'000'000'000,
                                               .corrected_node_score = 0,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "node-c"},
                                             {{.raw = 42.0,
                                               .raw_score = 42,
                                               .node_score = 99,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 42,
                                               .corrected_node_score = 99,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "node-\xC3\xA9"},
                                             {{.raw = -1.0,
                                               .raw_score = 0,
                                               .node_score = 0,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 0,
                                               .corrected_node_score = 0,
                                               .flags = shm::kEntryHasSeries},
                                              "bad"}};
    writer.publish(entries, 1000);
    if (!attached.poll()) __builtin_trap();
  }
  PublishedTable(const PublishedTable&) = delete;
  PublishedTable& operator=(const PublishedTable&) = delete;
};

}  // namespace netscore::fuzz
