#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "tests/support/http_connection.h"

// The soak's client side: keep-alive workers and the per-interval tallies they feed.
namespace netscore::bench {

struct IntervalTally {
  std::uint64_t requests = 0;  // answered, any status
  std::uint64_t non2xx = 0;
  std::uint64_t transport_errors = 0;  // connect/write/read failures and timeouts
  std::vector<double> latency_us;      // client-side, answered requests only
  std::string first_failure;           // status line and body of the first non-2xx, for the log
};

// One worker's counts since the reporter last took them.
// Thread-safe: the worker adds, the reporter takes, under one mutex.
class TrafficTally {
 public:
  void answered(double latency_us, unsigned status, const std::string& body);
  void transport_error();
  IntervalTally take();

 private:
  std::mutex mutex_;
  IntervalTally current_;
};

// Adds b into a (latencies appended).
void merge(IntervalTally& a, IntervalTally&& b);

// Cycles through `requests` on one keep-alive connection until `stop` is set or `deadline`
// passes. After a transport error it reconnects, at most every 100 ms, so a dead server cannot
// turn the loop into a busy spin.
void run_client(std::uint16_t port, const std::vector<testing::WireRequest>& requests,
                const std::atomic<bool>& stop, std::chrono::steady_clock::time_point deadline,
                TrafficTally& tally);

}  // namespace netscore::bench
