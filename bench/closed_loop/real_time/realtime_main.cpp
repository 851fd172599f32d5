// netscore-closed-loop-realtime: the policies on one generated trace, each in real time with the
// real collector, extender and Prometheus (realtime.h), so that the virtual-time results of
// netscore-closed-loop can be checked against the parts they model. Prints the same Markdown
// table and writes the same SVG. With --kube-bin=DIR the API server and the scheduler are the
// real kube-apiserver and kube-scheduler from DIR, with etcd (realtime_cluster.h).
#include <curl/curl.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "bench/closed_loop/placement/run_flags.h"
#include "bench/closed_loop/real_time/realtime.h"
#include "bench/closed_loop/reports/results_table.h"
#include "bench/closed_loop/reports/svg_plot.h"
#include "bench/flags/flags.h"

using namespace netscore::sim;
namespace flags = netscore::flags;

int main(int argc, char** argv) {
  RunFlags run;
  std::string svg_path = "closed-loop-realtime.svg";
  std::string kube_bin;
  std::string deploy_dir = NETSCORE_DEPLOY_DIR;
  flags::po::options_description options;
  options.add_options()("svg", flags::text(svg_path), "where the plot goes")(
      "kube-bin", flags::text(kube_bin),
      "a real control plane: kube-apiserver and kube-scheduler v1.26 from DIR and /usr/bin/etcd")(
      "deploy-dir", flags::text(deploy_dir), "the project's deploy/ (default: the source tree's)");
  if (const auto stop = parse_run_flags(
          argc, argv, options,
          "usage: netscore-closed-loop-realtime [--policies=NAME,NAME...] [--svg=PATH]\n"
          "         [--kube-bin=DIR [--deploy-dir=DIR]] [workload and loop flags]\n"
          "Each policy runs for --duration-s real seconds (prometheus in PATH).\n"
          "--kube-bin: a real control plane, kube-apiserver and kube-scheduler v1.26 from\n"
          "  DIR and /usr/bin/etcd, instead of the fake API server and the scheduler\n"
          "  model; kube-scheduler places the pods of kube-scheduler alone and of the\n"
          "  netscore policies with deploy/overlays/control-plane/kube-scheduler-config.yaml\n"
          "  (--cycle-s, --visible-s, --topology-spread and --tie-seed do not apply).\n",
          run, std::cout, std::cerr))
    return *stop;
  const WorkloadParams& workload = run.workload;
  std::optional<KubeClusterOptions> kube;
  if (!kube_bin.empty()) {
    kube = KubeClusterOptions{.kube_bin = kube_bin, .deploy_dir = deploy_dir};
    for (const char* binary : {"kube-apiserver", "kube-scheduler"}) {
      if (!std::filesystem::exists(kube_bin + "/" + binary)) {
        std::cerr << "--kube-bin: no " << binary << " in " << kube_bin << "\n";
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
  for (const auto& policy : run.policies) {
    std::cerr << "running \"" << policy.name << "\" for " << workload.duration_s << " s\n";
    try {
      results.push_back(run_policy_realtime(trace, policy, run.loop, binaries, kube));
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
