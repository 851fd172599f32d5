#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include "common/score_table_writer.h"

namespace netscore::fuzz {

// One real score table per fuzzing process, named netscore-fuzz-<pid> and removed at exit, holding
// what the collector publishes: an idle, a busy and a heavy node, a non-ASCII name and an invalid
// entry, so request lookups hit, miss and meet every score path. Not thread-safe (fuzz targets run
// one input at a time).
struct PublishedTable {
  std::string name = unused_name();
  ScoreTableWriter writer{{.name = name, .capacity = 64}};
  TableAttachment attached{{name, false, 64}};

  PublishedTable() {
    const std::vector<TableEntry> entries = {{"node-a", 0.0, 0, 100, 1000, true},
                                             {"node-b", 1.5e6, 1'500'000, 70, 1000, true},
                                             {"node-c", 5e9, 5'000'000'000, 0, 1000, true},
                                             {"node-\xC3\xA9", 42.0, 42, 99, 1000, true},
                                             {"bad", -1.0, 0, 0, 1000, false}};
    writer.publish(entries, 1000);
    if (!attached.poll()) __builtin_trap();
  }
  ~PublishedTable() { ScoreTableWriter::remove(name); }
  PublishedTable(const PublishedTable&) = delete;
  PublishedTable& operator=(const PublishedTable&) = delete;

 private:
  // A crashed run with a reused pid may have left a segment of another layout under the name.
  static std::string unused_name() {
    std::string n = "netscore-fuzz-" + std::to_string(::getpid());
    ScoreTableWriter::remove(n);
    return n;
  }
};

}  // namespace netscore::fuzz
