// netscore-closed-loop-realtime: the policies on one generated trace, each in real time with the
// real collector, extender and Prometheus (realtime.h), so that the virtual-time results of
// netscore-closed-loop can be checked against the parts they model. Prints the same Markdown
// table and writes the same SVG.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/closed_loop/realtime.h"
#include "bench/closed_loop/simulator.h"
#include "bench/closed_loop/svg_plot.h"

namespace {

using namespace netscore::sim;

// Policy names hold commas ("defaults, range scoring, weight 3"), so the list is read by matching
// the longest name at each position rather than by splitting on ','.
std::string select_policies(std::string_view list, std::vector<Policy>& out) {
  const std::vector<Policy> all = standard_policies();
  while (!list.empty()) {
    const Policy* match = nullptr;
    for (const auto& policy : all) {
      const std::string_view name = policy.name;
      if (list.starts_with(name) && (list.size() == name.size() || list[name.size()] == ',') &&
          (match == nullptr || name.size() > match->name.size()))
        match = &policy;
    }
    if (match == nullptr) return "--policies: no policy named at \"" + std::string(list) + "\"";
    out.push_back(*match);
    list.remove_prefix(std::min(list.size(), match->name.size() + 1));
    while (list.starts_with(' ')) list.remove_prefix(1);
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  WorkloadParams workload;
  LoopParams loop;
  std::string svg_path = "closed-loop-realtime.svg";
  std::vector<Policy> policies;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help") {
      std::cout << "usage: netscore-closed-loop-realtime [--policies=NAME,NAME...] [--svg=PATH]\n"
                   "         [workload and loop flags]\n"
                   "Each policy runs for --duration-s real seconds (prometheus in PATH).\n"
                   "policies (default: all):\n";
      for (const auto& policy : standard_policies()) std::cout << "  " << policy.name << "\n";
      std::cout << "workload:\n" << workload_help() << "loop:\n" << loop_help();
      return 0;
    }
    const auto eq = arg.find('=');
    if (!arg.starts_with("--") || eq == std::string_view::npos) {
      std::cerr << "expected --name=value, got " << arg << "\n";
      return 2;
    }
    const std::string_view name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    std::string error;
    if (name == "svg") {
      svg_path = value;
    } else if (name == "policies") {
      error = select_policies(value, policies);
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
  if (policies.empty()) policies = standard_policies();
  const Trace trace = generate_trace(workload);
  const RealtimeBinaries binaries{.collector = NETSCORE_COLLECTOR_BINARY,
                                  .extender = NETSCORE_EXTENDER_BINARY};
  stop_on_signals();
  std::vector<RunResult> results;
  std::vector<PlotSeries> lines;
  for (const auto& policy : policies) {
    std::cerr << "running \"" << policy.name << "\" for " << workload.duration_s << " s\n";
    try {
      results.push_back(run_policy_realtime(trace, policy, loop, binaries));
    } catch (const std::exception& e) {
      std::cerr << policy.name << ": " << e.what() << "\n";
      return 1;
    }
    lines.push_back({.name = policy.name, .points = results.back().peak_to_mean});
  }
  std::cout << results_table(results);
  std::ofstream svg(svg_path);
  write_line_plot(
      svg, "Hottest node / mean over time, real time (seed " + std::to_string(workload.seed) + ")",
      "seconds", "max / mean node traffic", lines);
  return svg ? 0 : 1;
}
