#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/closed_loop/reports/balance_metrics.h"

// What one policy's run on a trace yields, at either closed-loop level.
namespace netscore::sim {

struct RunResult {
  std::string policy;
  BalanceMetrics balance{};
  BurstSpread bursts{};
  std::vector<std::pair<double, double>> peak_to_mean{};  // smoothed, for plots
};

}  // namespace netscore::sim
