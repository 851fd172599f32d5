// netscore-scale-realtime: kube-scheduler's throughput and latency on a real control plane with a
// backlog of pods, alone and with netscore, in interleaved pairs, at each node count asked; and
// (--relist-pods) the collector's relist of that many bound pods. See bench/README.md.
#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "bench/closed_loop/scale_run.h"
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

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "netscore-scale-realtime: %s\n"
               "usage: netscore-scale-realtime --kube-bin=DIR [--nodes=1000,5000] [--pods=500]\n"
               "  [--pairs=3] [--replicaset-share=0.9] [--per-replicaset=10] [--threads=8]\n"
               "  [--timeout-s=600] [--quiet-s=10] [--data-minutes=45] [--deploy-dir=DIR]\n"
               "  [--collector=PATH] [--extender=PATH] (default: this build's)\n"
               "  [--scheduler-qps=N] [--profile-dir=DIR [--profile-s=5]]\n"
               "  [--relist-pods=N [--relist-repeats=3]]  (relist only, at the first --nodes)\n",
               problem.c_str());
  std::exit(2);
}

double number(std::string_view flag, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || v < 0) usage(fmt::format("{}: not a number", flag));
  return v;
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (!arg.starts_with("--") || eq == std::string::npos) usage("flags are --name=value");
    const std::string name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    const auto whole = [&] { return static_cast<unsigned>(number(name, value)); };
    if (name == "kube-bin") {
      f.run.kube_bin = value;
    } else if (name == "collector") {
      f.run.collector_binary = value;
    } else if (name == "extender") {
      f.run.extender_binary = value;
    } else if (name == "deploy-dir") {
      f.run.deploy_dir = value;
    } else if (name == "nodes") {
      f.node_counts.clear();
      for (std::size_t at = 0; at <= value.size();) {
        const auto comma = std::min(value.find(',', at), value.size());
        f.node_counts.push_back(static_cast<unsigned>(number(name, value.substr(at, comma - at))));
        at = comma + 1;
      }
    } else if (name == "pods") {
      f.run.pods = whole();
    } else if (name == "pairs") {
      f.pairs = whole();
    } else if (name == "replicaset-share") {
      f.run.replicaset_share = std::min(1.0, number(name, value));
    } else if (name == "per-replicaset") {
      f.run.per_replicaset = std::max(1U, whole());
    } else if (name == "threads") {
      f.run.threads = std::max(1U, whole());
    } else if (name == "timeout-s") {
      f.run.timeout_s = number(name, value);
    } else if (name == "quiet-s") {
      f.run.quiet_s = number(name, value);
    } else if (name == "data-minutes") {
      f.data_minutes = number(name, value);
    } else if (name == "scheduler-qps") {
      f.run.scheduler_qps = whole();
    } else if (name == "profile-dir") {
      f.run.profile_dir = value;
    } else if (name == "profile-s") {
      f.run.profile_s = number(name, value);
    } else if (name == "relist-pods") {
      f.relist_pods = whole();
    } else if (name == "relist-repeats") {
      f.relist_repeats = std::max(1U, whole());
    } else {
      usage("unknown flag --" + name);
    }
  }
  if (f.run.kube_bin.empty()) usage("--kube-bin is required");
  if (f.run.pods < 2 || f.pairs == 0 || f.node_counts.empty()) usage("pods >= 2, pairs >= 1");
  return f;
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
  const Flags flags = parse(argc, argv);
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
