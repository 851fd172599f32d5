#pragma once

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/reports/run_result.h"
#include "bench/closed_loop/workload/workload.h"

// The closed loop in virtual time: pods of a trace are scheduled one at a time, their traffic
// starts one scrape after binding and adds to their node's receive and transmit counters,
// Prometheus' range functions are evaluated exactly on the scraped samples (the link speed is a
// gauge scraped with them), and the collector's own placement model
// (ClusterState, build_snapshot) and the extender's own scoring (lookup_nodes, score_nodes, through
// a real shared-memory table) turn them into the next placements. Deterministic for a trace and a
// policy: hours of virtual time in seconds.
namespace netscore::sim {

RunResult run_policy(const Trace& trace, const Policy& policy, const LoopParams& params);

}  // namespace netscore::sim
