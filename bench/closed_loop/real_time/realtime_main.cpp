// netscore-closed-loop-realtime: the policies on one generated trace, each in real time with the
// real collector, extender and Prometheus (realtime.h), so that the virtual-time results of
// netscore-closed-loop can be checked against the parts they model. Prints the same Markdown
// table and writes the same SVG. With --kube-bin=DIR the API server and the scheduler are the
// real kube-apiserver and kube-scheduler from DIR, with etcd (realtime_cluster.h).
#include <curl/curl.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/closed_loop/realtime.h"
#include "bench/closed_loop/simulator.h"
#include "bench/closed_loop/svg_plot.h"

using namespace netscore::sim;

int main(int argc, char** argv) {
  WorkloadParams workload;
  LoopParams loop;
  std::string svg_path = "closed-loop-realtime.svg";
  std::vector<Policy> policies;
  std::optional<KubeClusterOptions> kube;
  std::string deploy_dir = NETSCORE_DEPLOY_DIR;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help") {
      std::cout
          << "usage: netscore-closed-loop-realtime [--policies=NAME,NAME...] [--svg=PATH]\n"
             "         [--kube-bin=DIR [--deploy-dir=DIR]] [workload and loop flags]\n"
             "Each policy runs for --duration-s real seconds (prometheus in PATH).\n"
             "--kube-bin: a real control plane, kube-apiserver and kube-scheduler v1.26 from\n"
             "  DIR and /usr/bin/etcd, instead of the fake API server and the scheduler\n"
             "  model; kube-scheduler places the pods of kube-scheduler alone and of the\n"
             "  netscore policies with deploy/overlays/control-plane/kube-scheduler-config.yaml\n"
             "  (--cycle-s, --visible-s, --topology-spread and --tie-seed do not apply).\n"
             "--deploy-dir: the project's deploy/ (default: the source tree's).\n";
      std::cout << policies_help() << "workload:\n" << workload_help() << "loop:\n" << loop_help();
      return 0;
    }
    const auto flag = split_flag(arg);
    if (!flag) {
      std::cerr << "expected --name=value, got " << arg << "\n";
      return 2;
    }
    const auto [name, value] = *flag;
    std::string error;
    if (name == "svg") {
      svg_path = value;
    } else if (name == "kube-bin") {
      kube.emplace().kube_bin = value;
    } else if (name == "deploy-dir") {
      deploy_dir = value;
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
  if (policies.empty())
    policies = workload.link_speed > 0 ? heterogeneous_policies() : standard_policies();
  if (kube) {
    kube->deploy_dir = deploy_dir;
    for (const char* binary : {"kube-apiserver", "kube-scheduler"}) {
      if (!std::filesystem::exists(kube->kube_bin + "/" + binary)) {
        std::cerr << "--kube-bin: no " << binary << " in " << kube->kube_bin << "\n";
        return 2;
      }
    }
  }
  const Trace trace = generate_trace(workload);
  const RealtimeBinaries binaries{.collector = NETSCORE_COLLECTOR_BINARY,
                                  .extender = NETSCORE_EXTENDER_BINARY};
  stop_on_signals();
  // Before any thread: the pod watch of --kube-bin requests from its own.
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::vector<RunResult> results;
  std::vector<PlotSeries> lines;
  for (const auto& policy : policies) {
    std::cerr << "running \"" << policy.name << "\" for " << workload.duration_s << " s\n";
    try {
      results.push_back(run_policy_realtime(trace, policy, loop, binaries, kube));
    } catch (const std::exception& e) {
      std::cerr << policy.name << ": " << e.what() << "\n";
      return 1;
    }
    lines.push_back({.name = policy.name, .points = results.back().peak_to_mean});
  }
  std::cout << results_table(results);
  if (workload.link_speed > 0) std::cout << "\n" << link_table(results);
  std::ofstream svg(svg_path);
  write_line_plot(
      svg, "Hottest node / mean over time, real time (seed " + std::to_string(workload.seed) + ")",
      "seconds", "max / mean node traffic", lines);
  return svg ? 0 : 1;
}
