#pragma once

#include <cstdint>
#include <vector>

#include "bench/support/percentile.h"
#include "bench/soak/soak_traffic.h"
#include "tests/support/binary_process.h"
#include "tests/support/http_connection.h"

// The soak's figures: one machine-readable line per interval, a summary and the acceptance checks.
namespace netscore::bench {

// The collector's refresh counters as the extender reports them in /table; -1 when unreadable.
struct CollectorCounts {
  std::int64_t refreshes = -1;  // attempts
  std::int64_t failures = -1;
  std::int64_t consecutive_failures = -1;
};

// GET /table on the given connection (reconnecting once after a transport failure).
CollectorCounts read_collector_counts(testing::HttpConnection& client);

struct Sample {
  testing::BinaryProcess::Sample extender;
  testing::BinaryProcess::Sample collector;
  CollectorCounts counts;
};

// Not thread-safe: the soak's reporting thread owns it.
class SoakReport {
 public:
  SoakReport(unsigned clients, double rss_bound_mb)
      : clients_(clients), rss_bound_kb_(rss_bound_mb * 1024) {}

  // Baseline after warm-up: RSS and fds are compared against it.
  void set_start(const Sample& s) { start_ = s; }
  // Prints `soak_interval t_s=... requests=... non2xx=... p50_us=... p99_us=... ...`.
  void add_interval(double t_s, IntervalTally&& interval, const Sample& s);
  void set_end(const Sample& s, bool children_alive) {
    end_ = s;
    children_alive_ = children_alive;
  }
  void set_restarts(int restarts) { restarts_ = restarts; }
  // Prints the report and one `check ... PASS|FAIL` line per acceptance check; true when all pass.
  bool print_summary(double elapsed_s);

 private:
  unsigned clients_;
  double rss_bound_kb_;
  Sample start_;
  Sample end_;
  bool children_alive_ = false;
  int restarts_ = 0;
  IntervalTally total_;
  std::vector<double> interval_p99_us_;
};

}  // namespace netscore::bench
