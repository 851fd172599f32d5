// netscore-closed-loop: the policies on one generated trace, in virtual time. Prints a Markdown
// table (and one of the links' utilisation when the nodes have link speeds) and writes an SVG of
// max/mean over time (one line per policy); with --seeds=N, the policies on the traces of N seeds
// from --seed on, and one table of their figures over the seeds.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/closed_loop/placement/run_flags.h"
#include "bench/closed_loop/reports/eviction_log.h"
#include "bench/closed_loop/reports/results_table.h"
#include "bench/closed_loop/reports/svg_plot.h"
#include "bench/closed_loop/virtual_time/simulator.h"
#include "bench/flags/flags.h"

int main(int argc, char** argv) {
  using namespace netscore::sim;
  namespace flags = netscore::flags;
  RunFlags run;
  std::string svg_path = "closed-loop.svg";
  std::uint64_t seeds = 1;
  flags::po::options_description options;
  options.add_options()("svg", flags::text(svg_path), "where the plot goes (closed-loop.svg)")(
      "seeds", flags::number(seeds), "traces of this many seeds from --seed on: figures over them");
  if (const auto stop = parse_run_flags(
          argc, argv, options,
          "usage: netscore-closed-loop [--policies=NAME,NAME...] [--svg=PATH] [--seeds=N]\n"
          "         [--netscore-env=NAME=VALUE;NAME=VALUE...] [workload and loop flags]\n",
          run, std::cout, std::cerr))
    return *stop;
  if (seeds > 1) {
    std::vector<std::vector<RunResult>> runs;
    for (std::uint64_t i = 0; i < seeds; ++i) {
      WorkloadParams workload = run.workload;
      workload.seed += i;
      const Trace trace = generate_trace(workload);
      runs.emplace_back();
      for (const auto& policy : run.policies)
        runs.back().push_back(run_policy(trace, policy, run.loop));
    }
    std::cout << seeds_table(runs);
    return 0;
  }
  const Trace trace = generate_trace(run.workload);
  std::vector<RunResult> results;
  std::vector<PlotSeries> lines;
  for (const auto& policy : run.policies) {
    results.push_back(run_policy(trace, policy, run.loop));
    if (results.back().evictions)
      std::cerr << policy.name << ": " << describe(*results.back().evictions) << "\n";
    lines.push_back({.name = policy.name, .points = results.back().peak_to_mean});
  }
  std::cout << results_table(results);
  if (run.workload.link_speed > 0) std::cout << "\n" << link_table(results);
  std::ofstream svg(svg_path);
  write_line_plot(svg,
                  "Hottest node / mean over time (seed " + std::to_string(run.workload.seed) + ")",
                  "virtual seconds", "max / mean node traffic", lines);
  return svg ? 0 : 1;
}
