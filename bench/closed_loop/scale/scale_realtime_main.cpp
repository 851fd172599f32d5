// netscore-scale-realtime: kube-scheduler's throughput and latency on a real control plane with a
// backlog of pods, alone and with netscore, in interleaved pairs, at each node count asked. See
// bench/README.md.
#include <curl/curl.h>

#include <cstdio>
#include <cstdint>
#include <ctime>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/split.hpp>
#include <spdlog/spdlog.h>

#include "bench/closed_loop/scale/scale_report.h"
#include "bench/closed_loop/scale/scale_run.h"
#include "bench/flags/flags.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace {

using netscore::sim::run_scale;
using netscore::sim::ScaleMode;
using netscore::sim::ScaleRunOptions;

struct Flags {
  ScaleRunOptions run{.kube_bin = {},
                      .deploy_dir = NETSCORE_DEPLOY_DIR,
                      .collector_binary = NETSCORE_COLLECTOR_BINARY,
                      .extender_binary = NETSCORE_EXTENDER_BINARY};
  std::vector<unsigned> node_counts{1000};
  // kube-scheduler's API client: "raised" (qps and burst `raised_qps`, as scheduler_perf and large
  // clusters run it, so that the scheduling cycle paces the bindings) and/or "shipped" (its
  // defaults, 50 and 100, which pace them at ~62 pods/s).
  std::vector<std::string> client_limits{"raised"};
  unsigned raised_qps = 1000;
  unsigned pairs = 3;
  // Each pair also runs the floor: the extender without a table, what any HTTP extender costs.
  bool floor = false;
};

// Prometheus' backfilled series reach this far ahead of the start: the pairs at one node count
// must be over before they run out.
constexpr double kDataMinutes = 45;

constexpr const char* kUsage =
    "usage: netscore-scale-realtime --kube-bin=DIR [--nodes=1000,5000] [--pods=500]\n"
    "  [--pairs=3] [--floor=false] [--timeout-s=600] [--quiet-s=10] [--time-scale=15]\n"
    "  [--deploy-dir=DIR]\n"
    "  [--client-limits=raised|shipped|raised,shipped] [--scheduler-qps=1000]\n";

std::vector<std::string> comma_list(const std::string& list) {
  std::vector<std::string> items;
  boost::algorithm::split(items, list, boost::algorithm::is_any_of(","));
  return items;
}

// The flags, or the exit code when the command should stop (--help, a bad flag).
std::optional<int> parse(int argc, char** argv, Flags& f) {
  namespace flags = netscore::flags;
  namespace po = flags::po;
  po::options_description options;
  options.add_options()("kube-bin", flags::text(f.run.kube_bin), "kube-apiserver, kube-scheduler")(
      "deploy-dir", flags::text(f.run.deploy_dir), "the project's deploy/")(
      "nodes", po::value<std::string>()->notifier([&f](const std::string& list) {
        f.node_counts.clear();
        for (const auto& item : comma_list(list)) {
          const auto count = flags::parse_number<unsigned>(item);
          if (!count) throw po::error("--nodes=" + list + ": expected counts such as 1000,5000");
          f.node_counts.push_back(*count);
        }
      }),
      "node counts, comma-separated")("pods", flags::number(f.run.pods), "the backlog")(
      "pairs", flags::number(f.pairs), "alone/netscore pairs per node count")(
      "floor", flags::boolean(f.floor), "each pair also runs the table-less extender")(
      "timeout-s", flags::seconds(f.run.timeout_s), "for every pod to be bound")(
      "quiet-s", flags::seconds(f.run.quiet_s), "netscore idle before kube-scheduler starts")(
      "time-scale", flags::number(f.run.time_scale), "netscore's refresh and window divided by")(
      "client-limits", po::value<std::string>()->notifier([&f](const std::string& list) {
        f.client_limits = comma_list(list);
        for (const auto& limits : f.client_limits) {
          if (limits != "raised" && limits != "shipped")
            throw po::error("--client-limits=" + list + ": expected raised, shipped or both");
        }
      }),
      "kube-scheduler's client limits, comma-separated")(
      "scheduler-qps", flags::number(f.raised_qps), "the raised client qps and burst");
  if (const auto stop = flags::parse(argc, argv, options, kUsage, std::cout, std::cerr))
    return stop;
  for (const auto& [flag, value] :
       {std::pair{"--timeout-s", f.run.timeout_s}, std::pair{"--quiet-s", f.run.quiet_s}}) {
    if (value < 0) {
      std::cerr << "netscore-scale-realtime: " << flag << " must not be negative\n";
      return 2;
    }
  }
  if (f.run.time_scale <= 0) {
    std::cerr << "netscore-scale-realtime: --time-scale must be positive\n";
    return 2;
  }
  if (f.run.kube_bin.empty() || f.run.pods < 2 || f.pairs == 0 || f.node_counts.empty()) {
    std::cerr << "netscore-scale-realtime: --kube-bin is required, pods >= 2, pairs >= 1\n"
              << kUsage;
    return 2;
  }
  return std::nullopt;
}

void run_pairs(const Flags& flags, unsigned nodes) {
  const auto now_s = static_cast<std::int64_t>(std::time(nullptr));
  const auto ahead_s = static_cast<std::int64_t>(kDataMinutes * 60);
  // 10 s steps: two samples in every 20 s window the scaled refresh reads.
  netscore::testing::PrometheusProcess prometheus(
      netscore::testing::SynthOptions{.nodes = nodes,
                                      .end_s = now_s + ahead_s,
                                      .hours = static_cast<double>(ahead_s + 600) / 3600,
                                      .step_s = 10,
                                      .layout = netscore::testing::SynthLayout::kubernetes_node,
                                      .extra_metric = {},
                                      .links = true});
  for (const auto& limits : flags.client_limits) {
    ScaleRunOptions options = flags.run;
    options.nodes = nodes;
    options.scheduler_qps =
        limits == "raised" ? std::optional(flags.raised_qps) : std::optional<unsigned>();
    netscore::sim::ScalePairs pairs{.nodes = nodes, .limits = limits, .alone = {}, .with = {}};
    for (unsigned pair = 1; pair <= flags.pairs; ++pair) {
      pairs.alone.push_back(run_scale(options, ScaleMode::alone, prometheus.url()));
      netscore::sim::print_run(pairs, pairs.alone.back());
      if (flags.floor) {
        pairs.floor.push_back(run_scale(options, ScaleMode::floor, prometheus.url()));
        netscore::sim::print_run(pairs, pairs.floor.back());
      }
      pairs.with.push_back(run_scale(options, ScaleMode::netscore, prometheus.url()));
      netscore::sim::print_run(pairs, pairs.with.back());
      netscore::sim::print_pair(pairs);
    }
    netscore::sim::print_summary(pairs);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (const auto stop = parse(argc, argv, flags)) return *stop;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::warn);
  int status = 0;
  try {
    for (const unsigned nodes : flags.node_counts) run_pairs(flags, nodes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netscore-scale-realtime: %s\n", e.what());
    status = 1;
  }
  curl_global_cleanup();
  return status;
}
