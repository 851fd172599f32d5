// netscore-scale-realtime: kube-scheduler's throughput and latency on a real control plane with a
// backlog of pods, alone and with netscore, in interleaved pairs, at each node count asked; and
// (--relist-pods) the collector's relist of that many bound pods. See bench/README.md.
#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "bench/closed_loop/scale/scale_run.h"
#include "bench/flags/flags.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace {

using netscore::sim::LatencyQuantiles;
using netscore::sim::ScaleRunOptions;
using netscore::sim::ScaleRunResult;

struct Flags {
  ScaleRunOptions run{.kube_bin = {},
                      .deploy_dir = NETSCORE_DEPLOY_DIR,
                      .collector_binary = NETSCORE_COLLECTOR_BINARY,
                      .extender_binary = NETSCORE_EXTENDER_BINARY};
  std::vector<unsigned> node_counts{1000};
  unsigned pairs = 3;
  unsigned relist_pods = 0;
  unsigned relist_repeats = 3;
  double data_minutes = 45;  // Prometheus' backfilled series reach this far ahead of the start
};

constexpr const char* kUsage =
    "usage: netscore-scale-realtime --kube-bin=DIR [--nodes=1000,5000] [--pods=500]\n"
    "  [--pairs=3] [--replicaset-share=0.9] [--per-replicaset=10] [--threads=8]\n"
    "  [--timeout-s=600] [--quiet-s=10] [--data-minutes=45] [--deploy-dir=DIR]\n"
    "  [--collector=PATH] [--extender=PATH] (default: this build's)\n"
    "  [--scheduler-qps=N] [--profile-dir=DIR [--profile-s=5]]\n"
    "  [--relist-pods=N [--relist-repeats=3]]  (relist only, at the first --nodes)\n";

// The flags, or the exit code when the command should stop (--help, a bad flag).
std::optional<int> parse(int argc, char** argv, Flags& f) {
  namespace flags = netscore::flags;
  namespace po = flags::po;
  po::options_description options;
  options.add_options()("kube-bin", flags::text(f.run.kube_bin), "kube-apiserver, kube-scheduler")(
      "collector", flags::text(f.run.collector_binary), "netscore-collector")(
      "extender", flags::text(f.run.extender_binary), "netscore-extender")(
      "deploy-dir", flags::text(f.run.deploy_dir), "the project's deploy/")(
      "nodes", po::value<std::string>()->notifier([&f](const std::string& list) {
        f.node_counts.clear();
        for (std::size_t at = 0; at <= list.size();) {
          const auto comma = std::min(list.find(',', at), list.size());
          const auto count = flags::parse_number<unsigned>(list.substr(at, comma - at));
          if (!count) throw po::error("--nodes=" + list + ": expected counts such as 1000,5000");
          f.node_counts.push_back(*count);
          at = comma + 1;
        }
      }),
      "node counts, comma-separated")("pods", flags::number(f.run.pods), "the backlog")(
      "pairs", flags::number(f.pairs), "alone/netscore pairs per node count")(
      "replicaset-share", flags::number(f.run.replicaset_share), "pods with a ReplicaSet")(
      "per-replicaset", flags::number(f.run.per_replicaset), "pods per ReplicaSet")(
      "threads", flags::number(f.run.threads), "concurrent API requests")(
      "timeout-s", flags::seconds(f.run.timeout_s), "for every pod to be bound")(
      "quiet-s", flags::seconds(f.run.quiet_s), "netscore idle before kube-scheduler starts")(
      "data-minutes", flags::number(f.data_minutes), "Prometheus' backfilled series")(
      "scheduler-qps",
      po::value<flags::Number<unsigned>>()->notifier(
          [&f](const flags::Number<unsigned>& qps) { f.run.scheduler_qps = qps.value; }),
      "kube-scheduler's client qps and burst")("profile-dir", flags::text(f.run.profile_dir),
                                               "where the CPU profiles go")(
      "profile-s", flags::seconds(f.run.profile_s), "profile length")(
      "relist-pods", flags::number(f.relist_pods), "relist only, of this many bound pods")(
      "relist-repeats", flags::number(f.relist_repeats), "relists");
  if (const auto stop = flags::parse(argc, argv, options, kUsage, std::cout, std::cerr))
    return stop;
  for (const auto& [flag, value] :
       {std::pair{"--replicaset-share", f.run.replicaset_share},
        std::pair{"--timeout-s", f.run.timeout_s}, std::pair{"--quiet-s", f.run.quiet_s},
        std::pair{"--data-minutes", f.data_minutes}, std::pair{"--profile-s", f.run.profile_s}}) {
    if (value < 0) {
      std::cerr << "netscore-scale-realtime: " << flag << " must not be negative\n";
      return 2;
    }
  }
  f.run.replicaset_share = std::min(1.0, f.run.replicaset_share);
  f.run.per_replicaset = std::max(1U, f.run.per_replicaset);
  f.run.threads = std::max(1U, f.run.threads);
  f.relist_repeats = std::max(1U, f.relist_repeats);
  if (f.run.kube_bin.empty() || f.run.pods < 2 || f.pairs == 0 || f.node_counts.empty()) {
    std::cerr << "netscore-scale-realtime: --kube-bin is required, pods >= 2, pairs >= 1\n"
              << kUsage;
    return 2;
  }
  return std::nullopt;
}

std::string ms(const std::optional<double>& seconds) {
  return seconds ? fmt::format("{:.1f}", *seconds * 1000) : std::string("-");
}

void print_run(unsigned nodes, unsigned pair, const ScaleRunResult& r) {
  std::string cpu;
  for (const auto& [comm, seconds] : r.cpu_s) cpu += fmt::format(" cpu_{}_s={:.2f}", comm, seconds);
  std::printf(
      "scale_run nodes=%u pair=%u mode=%s bound=%u first_to_last_s=%.2f pods_per_s=%.1f "
      "attempt_p50_ms=%s attempt_p99_ms=%s algorithm_p50_ms=%s algorithm_p99_ms=%s "
      "queued_p50_ms=%s queued_p99_ms=%s since_first_p50_ms=%s since_first_p99_ms=%s%s",
      nodes, pair, r.netscore ? "netscore" : "alone", r.bound, r.first_to_last_s, r.pods_per_s,
      ms(r.attempt.p50).c_str(), ms(r.attempt.p99).c_str(), ms(r.algorithm.p50).c_str(),
      ms(r.algorithm.p99).c_str(), ms(r.queued.p50).c_str(), ms(r.queued.p99).c_str(),
      ms(r.since_first.p50).c_str(), ms(r.since_first.p99).c_str(), cpu.c_str());
  if (r.netscore) {
    std::printf(
        " extender_cpu_ms_per_pod=%.3f collector_cpu_ms_per_refresh=%.1f "
        "prometheus_cpu_ms_per_refresh=%.1f refreshes_per_s=%.2f collector_peak_rss_kb=%ld "
        "extender_peak_rss_kb=%ld prioritize_answered=%.0f extender_established=%u "
        "extender_time_wait=%u extender_server_p50_ms=%s extender_server_p99_ms=%s",
        r.extender_cpu_ms_per_pod, r.collector_cpu_ms_per_refresh, r.prometheus_cpu_ms_per_refresh,
        r.refreshes_per_s, r.collector_peak_rss_kb, r.extender_peak_rss_kb, r.prioritize_answered,
        r.extender_established, r.extender_time_wait, ms(r.extender_server.p50).c_str(),
        ms(r.extender_server.p99).c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void run_pairs(const Flags& flags, unsigned nodes) {
  const auto now_s = static_cast<std::int64_t>(std::time(nullptr));
  const auto ahead_s = static_cast<std::int64_t>(flags.data_minutes * 60);
  // 10 s steps: two samples in every 20 s window the scaled refresh reads.
  netscore::testing::PrometheusProcess prometheus(
      netscore::testing::SynthOptions{.nodes = nodes,
                                      .end_s = now_s + ahead_s,
                                      .hours = static_cast<double>(ahead_s + 600) / 3600,
                                      .step_s = 10,
                                      .layout = netscore::testing::SynthLayout::kubernetes_node,
                                      .extra_metric = {},
                                      .links = true});
  ScaleRunOptions options = flags.run;
  options.nodes = nodes;
  std::vector<double> throughput;
  // p99 ratios of kube-scheduler's three latencies (one attempt, the algorithm, queue to bound)
  // and of the watch's drain order.
  std::vector<double> p99[4];
  const auto p99_of = [](const ScaleRunResult& r, int which) {
    const LatencyQuantiles* all[] = {&r.attempt, &r.algorithm, &r.queued, &r.since_first};
    return all[which]->p99;
  };
  for (unsigned pair = 1; pair <= flags.pairs; ++pair) {
    const ScaleRunResult alone = netscore::sim::run_scale(options, false, prometheus.url());
    print_run(nodes, pair, alone);
    const ScaleRunResult with = netscore::sim::run_scale(options, true, prometheus.url());
    print_run(nodes, pair, with);
    throughput.push_back(with.pods_per_s / alone.pods_per_s);
    std::string ratios;
    for (int which = 0; which < 4; ++which) {
      const auto a = p99_of(alone, which), w = p99_of(with, which);
      if (a && w && *a > 0) p99[which].push_back(*w / *a);
      ratios += a && w && *a > 0 ? fmt::format(" {:.3f}", *w / *a) : std::string(" -");
    }
    std::printf(
        "scale_pair nodes=%u pair=%u throughput_ratio=%.3f p99_ratios(attempt,algorithm,queued,since_first)=%s\n",
        nodes, pair, throughput.back(), ratios.c_str());
    std::fflush(stdout);
  }
  std::string medians;
  for (const auto& ratios : p99) {
    medians += ratios.empty() ? std::string(" -") : fmt::format(" {:.3f}", median(ratios));
  }
  std::printf(
      "scale_summary nodes=%u pairs=%u median_throughput_ratio=%.3f "
      "median_p99_ratios(attempt,algorithm,queued,since_first)=%s\n",
      nodes, flags.pairs, median(throughput), medians.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (const auto stop = parse(argc, argv, flags)) return *stop;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::warn);
  int status = 0;
  try {
    if (flags.relist_pods > 0) {
      ScaleRunOptions options = flags.run;
      options.nodes = flags.node_counts.front();
      const auto results =
          netscore::sim::measure_relist(options, flags.relist_pods, flags.relist_repeats);
      for (std::size_t r = 0; r < results.size(); ++r) {
        std::printf("relist nodes=%u pods=%u repeat=%zu wall_s=%.2f cpu_s=%.2f rss_delta_kb=%ld\n",
                    options.nodes, flags.relist_pods, r + 1, results[r].wall_s, results[r].cpu_s,
                    results[r].rss_delta_kb);
      }
    } else {
      for (const unsigned nodes : flags.node_counts) run_pairs(flags, nodes);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "netscore-scale-realtime: %s\n", e.what());
    status = 1;
  }
  curl_global_cleanup();
  return status;
}
