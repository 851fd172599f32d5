#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "extender/scheduler/freshness.h"

// Whether the table can steer pods, in words an operator can act on; shared by /readyz and the
// state-change log. Thread-safe.
namespace netscore::extender {

struct TableHealth {
  Freshness freshness = Freshness::detached;
  std::string problem;  // empty when fresh, else why not ("score table stale: ...")
};

TableHealth table_health(const TableAttachment& table, const Config& config,
                         std::int64_t now_mono_ns);

// Logs each change of the table's state once per process: warn when it stops being fresh
// (stale, empty, detached), info when it is fresh again. A read that met a publish (busy) is
// transient and not a change. Call observe() from one thread's timer.
class TableStateLog {
 public:
  void observe(const TableHealth& health);

 private:
  std::atomic<int> last_{-1};  // Freshness, -1 before the first observation
};

}  // namespace netscore::extender
