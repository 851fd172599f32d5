#pragma once

#include <string>
#include <vector>

#include "bench/closed_loop/reports/run_result.h"

// The closed-loop commands' Markdown tables, one row per policy.
namespace netscore::sim {

// The balance: peak/mean, CV, hot node-seconds, bursts on one node.
std::string results_table(const std::vector<RunResult>& results);
// Over seeds (`runs[seed][policy]`, the same policies in each): per policy the median and the
// worst seed's hot node-seconds and peak/mean, and the hot node-seconds of all seeds.
std::string seeds_table(const std::vector<std::vector<RunResult>>& runs);
// The links' figures (hot link-seconds, peak utilisation, pods per node by link speed).
std::string link_table(const std::vector<RunResult>& results);

}  // namespace netscore::sim
