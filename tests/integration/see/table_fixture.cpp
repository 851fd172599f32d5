// Publishes (or removes) a score table for the tests that run a real netscore-extender:
//   table_fixture publish <shm-name> <last-error> NAME RAW NODE_SCORE VALID [NAME RAW NODE_SCORE
//   VALID ...] table_fixture remove <shm-name>
// RAW is also the plugin's raw_score (truncated) and, on a valid node, its receive rate in bytes/s
// over a measured 1 Gbit/s link (so the link figures of /table and /metrics have values); VALID is
// 1 or 0. A non-empty <last-error> records
// a collector that failed once (still fresh), so its text reaches /table.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/table/score_table_writer.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "remove")
    return netscore::ScoreTableWriter::remove(args[1]) ? 0 : 1;
  if (args.size() < 3 || args[0] != "publish" || (args.size() - 3) % 4 != 0) {
    std::cerr << "usage: table_fixture publish <shm-name> <last-error> NAME RAW NODE_SCORE VALID "
                 "... | remove <shm-name>\n";
    return 2;
  }
  std::vector<netscore::TableEntry> entries;
  const std::int64_t now_ms = netscore::wall_now_ms();
  for (std::size_t i = 3; i < args.size(); i += 4) {
    const double raw = std::strtod(args[i + 1].c_str(), nullptr);
    const bool valid = args[i + 3] == "1";
    entries.push_back(
        {{.raw = raw,
          .raw_score = static_cast<std::int64_t>(raw),
          .node_score = std::atoll(args[i + 2].c_str()),
          .sample_ms = now_ms,
          .rate = valid ? raw : 0.0,
          .flags = netscore::shm::kEntryHasSeries |
                   (valid ? netscore::shm::kEntryValid | netscore::shm::kEntryRateValid |
                                netscore::shm::kEntrySpeedMeasured
                          : 0U),
          .speed = valid ? 125e6 : 0.0},
         args[i]});
  }
  netscore::ScoreTableWriter writer({args[1], 64, 0600, false});
  writer.publish(entries, now_ms);
  netscore::shm::CollectorStatus status{};
  status.writer_pid = 0;
  status.refreshes_total = 2;
  status.last_success_wall_ms = now_ms;
  status.last_success_mono_ns = netscore::mono_now_ns();
  status.heartbeat_mono_ns = status.last_success_mono_ns;
  if (!args[2].empty()) {
    status.consecutive_failures = 1;
    status.failures_total = 1;
    std::strncpy(status.last_error, args[2].c_str(), sizeof(status.last_error) - 1);
  }
  writer.record_status(status);
  return EXIT_SUCCESS;
}
