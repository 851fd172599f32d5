#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "bench/closed_loop/scale/scale_run.h"

// The scale benchmark's lines on stdout, one `key=value` record per run, per pair and per set of
// pairs (bench/README.md): throughput, kube-scheduler's latencies and each process' CPU per pod.
namespace netscore::sim {

// The pairs of one node count under one client limit: the scheduler alone, then with netscore.
struct ScalePairs {
  unsigned nodes = 0;
  std::string_view limits;  // "raised" or "shipped"
  std::vector<ScaleRunResult> alone, with;
  std::vector<ScaleRunResult> floor{};  // empty unless the floor runs too
};

// What netscore adds to a scheduled pod: the collector's and the extender's CPU per pod bound.
std::optional<double> netscore_cpu_ms_per_pod(const ScaleRunResult& run);

// Prints the last run of `pairs` (alone, the floor or with netscore as it says).
void print_run(const ScalePairs& pairs, const ScaleRunResult& run);
// Prints the last pair's ratios: throughput and kube-scheduler's p99 latencies, netscore / alone;
// with a floor also the floor / alone and netscore / floor throughput.
void print_pair(const ScalePairs& pairs);
// Prints the medians over every pair: pods/s, the ratios, each process' CPU per pod.
void print_summary(const ScalePairs& pairs);

}  // namespace netscore::sim
