// netscore-closed-loop-realtime: the policies on one generated trace, each in real time with the
// real collector, extender and Prometheus (realtime.h) and the real kube-apiserver and
// kube-scheduler from --kube-bin=DIR, with etcd (realtime_cluster.h), so that the virtual-time
// results of netscore-closed-loop can be checked against the parts they model. Prints the same
// Markdown table and writes the same SVG. With --descheduler-bin=DIR also the real descheduler as
// deploy/overlays/descheduler runs it.
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
  std::string kube_bin, descheduler_bin, log_dir;
  std::string deploy_dir = NETSCORE_DEPLOY_DIR;
  flags::po::options_description options;
  options.add_options()("svg", flags::text(svg_path), "where the plot goes")(
      "kube-bin", flags::text(kube_bin),
      "required: kube-apiserver and kube-scheduler v1.26 from DIR (and /usr/bin/etcd)")(
      "deploy-dir", flags::text(deploy_dir), "the project's deploy/ (default: the source tree's)")(
      "descheduler-bin", flags::text(descheduler_bin),
      "the descheduler v0.33 from DIR, as deploy/overlays/descheduler runs it, for every policy")(
      "log-dir", flags::text(log_dir),
      "keep each netscore policy's collector and extender logs in DIR (POLICY-collector.log)");
  if (const auto stop = parse_run_flags(
          argc, argv, options,
          "usage: netscore-closed-loop-realtime --kube-bin=DIR [--policies=NAME,NAME...]\n"
          "         [--svg=PATH] [--deploy-dir=DIR] [--descheduler-bin=DIR] [--log-dir=DIR]\n"
          "         [workload and loop flags]\n"
          "Each policy runs for --duration-s real seconds (prometheus in PATH).\n"
          "--kube-bin: kube-apiserver and kube-scheduler v1.26 from DIR and /usr/bin/etcd;\n"
          "  kube-scheduler places the pods of kube-scheduler alone and of the netscore\n"
          "  policies with deploy/overlays/control-plane/kube-scheduler-config.yaml\n"
          "  (--cycle-s, --visible-s, --topology-spread, --tie-seed, --query-s and --series-s\n"
          "  do not apply).\n"
          "--descheduler-bin: the descheduler v0.33 from DIR against that control plane and\n"
          "  Prometheus (https on 127.0.0.1:443, as root), its interval and minPodAge\n"
          "  divided by --time-scale; the harness plays the kubelet and the ReplicaSet\n"
          "  controller of the pods it evicts.\n"
          "--log-dir: each netscore policy's collector and extender logs are kept there.\n",
          run, std::cout, std::cerr))
    return *stop;
  const WorkloadParams& workload = run.workload;
  if (kube_bin.empty()) {
    std::cerr << "--kube-bin: required (a directory with kube-apiserver and kube-scheduler)\n";
    return 2;
  }
  for (const char* binary : {"kube-apiserver", "kube-scheduler"}) {
    if (!std::filesystem::exists(kube_bin + "/" + binary)) {
      std::cerr << "--kube-bin: no " << binary << " in " << kube_bin << "\n";
      return 2;
    }
  }
  if (!log_dir.empty() && !std::filesystem::is_directory(log_dir)) {
    std::cerr << "--log-dir: " << log_dir << " is not a directory\n";
    return 2;
  }
  KubeClusterOptions kube{.kube_bin = kube_bin, .deploy_dir = deploy_dir};
  if (!descheduler_bin.empty()) {
    if (!std::filesystem::exists(descheduler_bin + "/descheduler")) {
      std::cerr << "--descheduler-bin: no descheduler in " << descheduler_bin << "\n";
      return 2;
    }
    kube.descheduler = DeschedulerOptions{.binary_dir = descheduler_bin,
                                          .overlay_dir = deploy_dir + "/overlays/descheduler",
                                          .time_scale = run.loop.time_scale};
  }
  const Trace trace = generate_trace(workload);
  const RealtimeBinaries binaries{.collector = NETSCORE_COLLECTOR_BINARY,
                                  .extender = NETSCORE_EXTENDER_BINARY,
                                  .log_dir = log_dir};
  stop_on_signals();
  // Before any thread: the pod watch requests from its own.
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
