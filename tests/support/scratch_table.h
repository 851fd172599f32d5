#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <string_view>

#include "common/table/score_table_writer.h"

namespace netscore::testing {

// A shared-memory table name no other test, benchmark or parallel run uses
// ("netscore-<kind>-<pid>-<n>[-<tag>]"), removed on creation (a crashed earlier run with the same
// pid may have left it) and on destruction, so nothing is left in /dev/shm. Needs no test framework
// (the benchmarks use it) and is header-only (the fuzz targets, built without this library, too).
class ScratchTable {
 public:
  explicit ScratchTable(std::string_view kind, std::string_view tag = {})
      : name_(make_name(kind, tag)) {
    ScoreTableWriter::remove(name_);
  }
  ~ScratchTable() { ScoreTableWriter::remove(name_); }
  ScratchTable(const ScratchTable&) = delete;
  ScratchTable& operator=(const ScratchTable&) = delete;

  const std::string& str() const { return name_; }
  operator const std::string&() const { return name_; }

 private:
  static std::string make_name(std::string_view kind, std::string_view tag) {
    static std::atomic<unsigned> counter{0};
    std::string name = "netscore-" + std::string(kind) + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter.fetch_add(1));
    if (!tag.empty()) name += "-" + std::string(tag);
    // Parameterised test names hold '/', which a shared-memory name may not.
    std::replace(name.begin(), name.end(), '/', '_');
    return name;
  }

  std::string name_;
};

}  // namespace netscore::testing
