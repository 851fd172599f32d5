// netscore-closed-loop: the policies on one generated trace, in virtual time. Prints a Markdown
// table (and one of the links' utilisation when the nodes have link speeds) and writes an SVG of
// max/mean over time (one line per policy).
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/closed_loop/simulator.h"
#include "bench/closed_loop/svg_plot.h"

int main(int argc, char** argv) {
  using namespace netscore::sim;
  WorkloadParams workload;
  LoopParams loop;
  std::string svg_path = "closed-loop.svg";
  std::vector<Policy> policies, env_policies;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help") {
      std::cout
          << "usage: netscore-closed-loop [--policies=NAME,NAME...] [--svg=PATH]\n"
             "         [--netscore-env=NAME=VALUE;NAME=VALUE...] [workload and loop flags]\n"
             "--netscore-env adds a policy after the others: the extender with those settings "
             "(repeatable)\n";
      std::cout << policies_help() << "workload:\n" << workload_help() << "loop:\n" << loop_help();
      return 0;
    }
    const auto flag = split_flag(arg);
    if (!flag) {
      std::cerr << "expected --name=value, got " << arg << "\n";
      return 2;
    }
    const auto [name, value] = *flag;
    if (name == "svg") {
      svg_path = value;
      continue;
    }
    std::string error;
    if (name == "policies") {
      error = select_policies(value, policies);
    } else if (name == "netscore-env") {
      error = add_env_policy(value, env_policies);
    } else {
      error = apply_run_flag(workload, loop, name, value);
    }
    if (!error.empty()) {
      std::cerr << error << "\n";
      return 2;
    }
  }
  if (const std::string error = validate(workload); !error.empty()) {
    std::cerr << error << "\n";
    return 2;
  }
  if (policies.empty())
    policies = workload.link_speed > 0 ? heterogeneous_policies() : standard_policies();
  policies.insert(policies.end(), env_policies.begin(), env_policies.end());
  const Trace trace = generate_trace(workload);
  std::vector<RunResult> results;
  std::vector<PlotSeries> lines;
  for (const auto& policy : policies) {
    results.push_back(run_policy(trace, policy, loop));
    lines.push_back({.name = policy.name, .points = results.back().peak_to_mean});
  }
  std::cout << results_table(results);
  if (workload.link_speed > 0) std::cout << "\n" << link_table(results);
  std::ofstream svg(svg_path);
  write_line_plot(svg, "Hottest node / mean over time (seed " + std::to_string(workload.seed) + ")",
                  "virtual seconds", "max / mean node traffic", lines);
  return svg ? 0 : 1;
}
