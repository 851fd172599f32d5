#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>

#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/prometheus/prometheus_client.h"

namespace netscore::collector {

// Measures on a drift-free schedule and hands every measurement to the publisher: tick k starts
// at start + k x interval; a refresh that overruns skips the ticks it missed instead of queueing
// them, so at most one is in flight. run() on one thread (a std::jthread's); a stop request
// wakes every wait at once and aborts an HTTP attempt in flight.
class RefreshLoop {
 public:
  struct Options {
    std::chrono::milliseconds interval{15000};
    // Evaluation time of a refresh starting now (Unix ms); tests pin it.
    std::function<std::int64_t()> eval_time_ms;
  };

  RefreshLoop(Options options, Measurer& measurer, Publisher& publisher, PrometheusClient& client);

  // Returns once a stop is requested.
  void run(std::stop_token stop);
  std::uint64_t refreshes() const;

 private:
  // True when the deadline passed, false when stopped first.
  bool wait_until(std::stop_token stop, std::chrono::steady_clock::time_point deadline);

  Options options_;
  Measurer& measurer_;
  Publisher& publisher_;
  PrometheusClient& client_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::uint64_t refreshes_ = 0;
};

}  // namespace netscore::collector
