#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/closed_loop/balance_metrics.h"
#include "bench/closed_loop/workload.h"
#include "common/config.h"

// The closed loop in virtual time: pods of a trace are scheduled one at a time, their traffic
// starts one scrape after binding and adds to their node's counter, Prometheus' range functions
// are evaluated exactly on the scraped samples, and the collector's own placement model
// (ClusterState, build_snapshot) and the extender's own scoring (lookup_nodes, score_nodes, through
// a real shared-memory table) turn them into the next placements. Deterministic for a trace and a
// policy: hours of virtual time in seconds.
namespace netscore::sim {

enum class PolicyKind {
  scheduler,    // kube-scheduler v1.26's default plugins alone, no extender
  fewest_pods,  // each pod to the node with the fewest pods (the baseline)
  netscore,     // the default plugins plus the extender with `env` on the shipped defaults
  oracle,       // each pod to the node with the least true traffic, bound pods counted at once
};

struct Policy {
  std::string name;
  PolicyKind kind = PolicyKind::netscore;
  Environment env{};        // NETSCORE_* settings on top of the shipped defaults
  std::int64_t weight = 0;  // extender weight; 0: the shipped scheduler configuration's
};

// The policies a comparison runs: the baselines, the seed's scores, the defaults, each model
// option alone, and the oracle.
std::vector<Policy> standard_policies();

struct LoopParams {
  double scrape_s = 1;      // Prometheus' scrape interval
  double time_scale = 15;   // the collector's durations are divided by this
  double cycle_s = 0.005;   // one scheduling cycle per pod
  double visible_s = 0.02;  // binding -> the collector's watch has it
  double sample_s = 1;      // the balance metrics' step
  double hot_factor = 1.5;
  bool topology_spread = true;      // the default PodTopologySpread constraint (ReplicaSets)
  std::int64_t shipped_weight = 1;  // the extender weight of the shipped configuration
  std::uint64_t tie_seed = 7;       // kube-scheduler breaks score ties at random
};

// "--name=value" for every LoopParams member; an error message or empty.
std::string apply_loop_flag(LoopParams& params, std::string_view name, std::string_view value);
std::string loop_help();
// A workload flag, else a loop flag: what both closed-loop commands accept.
std::string apply_run_flag(WorkloadParams& workload, LoopParams& loop, std::string_view name,
                           std::string_view value);

struct RunResult {
  std::string policy;
  BalanceMetrics balance{};
  BurstSpread bursts{};
  std::vector<std::pair<double, double>> peak_to_mean{};  // smoothed, for plots
};

RunResult run_policy(const Trace& trace, const Policy& policy, const LoopParams& params);

// A Markdown table of results, one row per policy.
std::string results_table(const std::vector<RunResult>& results);

}  // namespace netscore::sim
