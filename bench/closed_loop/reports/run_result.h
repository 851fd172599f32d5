#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/closed_loop/reports/balance_metrics.h"
#include "bench/closed_loop/reports/eviction_log.h"

// What one policy's run on a trace yields, at either closed-loop level.
namespace netscore::sim {

struct RunResult {
  std::string policy;
  BalanceMetrics balance{};
  BurstSpread bursts{};
  std::vector<std::pair<double, double>> peak_to_mean{};  // smoothed, for plots
  std::optional<EvictionSummary> evictions{};             // with a descheduler
  // Virtual time: pods netscore's extender scored without a fresh table (neutral scores, so
  // kube-scheduler's own plugins alone placed them).
  std::uint32_t unscored_pods = 0;
};

}  // namespace netscore::sim
