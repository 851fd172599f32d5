#pragma once

#include <string>
#include <vector>

#include "bench/closed_loop/reports/run_result.h"

// The closed-loop commands' Markdown tables, one row per policy.
namespace netscore::sim {

// The balance: peak/mean, CV, hot node-seconds, bursts on one node.
std::string results_table(const std::vector<RunResult>& results);
// The links' figures (hot link-seconds, peak utilisation, pods per node by link speed).
std::string link_table(const std::vector<RunResult>& results);

}  // namespace netscore::sim
