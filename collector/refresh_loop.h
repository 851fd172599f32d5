#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "collector/refresher.h"

namespace netscore::collector {

// Runs refreshes on a drift-free schedule: tick k starts at start + k x interval; a refresh that
// overruns skips the ticks it missed instead of queueing them, so at most one is in flight.
// Thread-safe: run() on one thread, stop() from any thread (e.g. the signal thread); stop()
// wakes every wait at once through the condition variable and aborts an HTTP attempt in flight.
class RefreshLoop {
 public:
  struct Options {
    std::chrono::milliseconds interval{15000};
    // Evaluation time of a refresh starting now (Unix ms); tests pin it.
    std::function<std::int64_t()> eval_time_ms;
  };

  RefreshLoop(Options options, Refresher& refresher, PrometheusClient& client);

  // Returns after stop().
  void run();
  void stop();
  std::uint64_t refreshes() const;

 private:
  // True when the deadline passed, false when stopped first.
  bool wait_until(std::chrono::steady_clock::time_point deadline);

  Options options_;
  Refresher& refresher_;
  PrometheusClient& client_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::uint64_t refreshes_ = 0;
};

}  // namespace netscore::collector
