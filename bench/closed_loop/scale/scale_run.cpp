#include "bench/closed_loop/scale/scale_run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "bench/closed_loop/processes/netscore_processes.h"
#include "bench/closed_loop/processes/pod_binding_watch.h"
#include "bench/closed_loop/scale/scale_cluster.h"
#include "bench/closed_loop/scale/scale_metrics.h"
#include "bench/closed_loop/placement/policy.h"
#include "bench/prometheus_text/exposition.h"
#include "bench/prometheus_text/histogram.h"
#include "tests/support/eventually.h"
#include "tests/support/binary_process.h"
#include "tests/support/http_client.h"
#include "tests/support/netscore_binaries.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// The processes whose CPU a run reports, as /proc/PID/comm names them.
constexpr std::string_view kProcesses[] = {"kube-scheduler", "kube-apiserver",  "etcd",
                                           "prometheus",     "netscore-collec", "netscore-extend"};

std::vector<std::string> node_names(unsigned nodes) {
  std::vector<std::string> out;
  for (const auto& node : testing::synth_nodes(nodes)) out.push_back(node.name);
  return out;
}

std::map<std::string, double> cpu_now() {
  std::map<std::string, double> out;
  for (const auto comm : kProcesses) {
    if (const auto pid = child_by_comm(comm)) {
      if (const auto cpu = process_cpu_s(*pid)) out[std::string(comm)] = *cpu;
    }
  }
  return out;
}

double refreshes_total(const std::string& extender_url) {
  rapidjson::Document table;
  table.Parse(testing::http_get(extender_url + "/table", 10s).body.c_str());
  const rapidjson::Value* total = rapidjson::Pointer("/collector/refreshes_total").Get(table);
  return total != nullptr && total->IsNumber() ? total->GetDouble() : 0;
}

// Idle netscore (no binding yet): the collector's and Prometheus' CPU per refresh.
void measure_idle(const std::string& extender_url, double quiet_s, ScaleRunResult& out) {
  const auto collector = child_by_comm("netscore-collec");
  const auto prometheus = child_by_comm("prometheus");
  if (!collector || !prometheus) throw std::runtime_error("no collector or Prometheus process");
  const double refreshes_before = refreshes_total(extender_url);
  const auto collector_before = process_cpu_s(*collector),
             prometheus_before = process_cpu_s(*prometheus);
  const auto start = Clock::now();
  std::this_thread::sleep_for(Seconds(quiet_s));
  const double refreshes = refreshes_total(extender_url) - refreshes_before;
  const auto collector_after = process_cpu_s(*collector),
             prometheus_after = process_cpu_s(*prometheus);
  const double elapsed = Seconds(Clock::now() - start).count();
  if (refreshes <= 0 || !collector_before || !collector_after || !prometheus_before ||
      !prometheus_after)
    throw std::runtime_error("the collector did not refresh while idle");
  out.refreshes_per_s = refreshes / elapsed;
  out.collector_cpu_ms_per_refresh = 1000 * (*collector_after - *collector_before) / refreshes;
  out.prometheus_cpu_ms_per_refresh = 1000 * (*prometheus_after - *prometheus_before) / refreshes;
}

// As an operator's dashboard reads them: histogram_quantile() over every matching series.
LatencyQuantiles quantiles(const std::string& metrics, std::string_view name,
                           const prometheus_text::Labels& matchers = {}) {
  const auto buckets = prometheus_text::buckets(prometheus_text::parse(metrics), name, matchers);
  return {prometheus_text::quantile(buckets, 0.5), prometheus_text::quantile(buckets, 0.99)};
}

// The floor's extender: a table name nothing creates, so it stays detached and neutral.
testing::BinaryProcess::Options floor_extender_options(const std::string& binary) {
  static unsigned floors = 0;
  return {.path = binary,
          .env = {fmt::format("NETSCORE_SHM_NAME=netscore-scale-floor-{}-{}", getpid(), ++floors),
                  "NETSCORE_LISTEN=127.0.0.1:0"}};
}

}  // namespace

std::string_view mode_name(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::alone:
      return "alone";
    case ScaleMode::floor:
      return "floor";
    case ScaleMode::netscore:
      return "netscore";
  }
  return "?";
}

ScaleRunResult run_scale(const ScaleRunOptions& options, ScaleMode mode,
                         const std::string& prometheus_url) {
  ScaleRunResult out;
  out.mode = mode;
  const bool netscore = mode == ScaleMode::netscore;
  ScaleCluster cluster({.kube_bin = options.kube_bin,
                        .deploy_dir = options.deploy_dir,
                        .nodes = node_names(options.nodes),
                        .threads = options.threads});
  cluster.create_backlog(options.pods, options.replicaset_share, options.per_replicaset);
  std::optional<NetscoreProcesses> processes;
  if (netscore) {
    processes.emplace(RealtimeBinaries{.collector = options.collector_binary,
                                       .extender = options.extender_binary},
                      Policy{.name = "netscore defaults", .kind = PolicyKind::netscore},
                      options.time_scale, prometheus_url, cluster.collector_env(), options.nodes);
    measure_idle(processes->url(), options.quiet_s, out);
  }
  std::optional<testing::BinaryProcess> floor_extender;
  std::string extender_url = processes ? processes->url() : std::string();
  if (mode == ScaleMode::floor) {
    floor_extender.emplace(floor_extender_options(options.extender_binary));
    extender_url = testing::extender_base_url(*floor_extender, 60s);
    if (extender_url.empty())
      throw std::runtime_error("the floor's extender did not start:\n" +
                               testing::log_tail(floor_extender->log_path()));
  }

  // Bindings are stamped as the watch delivers them, on a thread of their own: kube-scheduler
  // binds while start_scheduler still waits for its cache to report every node.
  PodBindingWatch watch(cluster.admin_kube());
  std::set<std::string> seen;
  std::vector<Clock::time_point> bound_at;
  Clock::time_point first{}, last{};
  std::map<std::string, double> cpu_first, cpu_last;
  std::atomic<bool> done{false};
  std::jthread stamper([&](const std::stop_token& stop) {
    while (!stop.stop_requested() && !done) {
      const auto batch = watch.take(Clock::now() + 100ms);
      const auto now = Clock::now();
      for (const auto& binding : batch) {
        if (!seen.insert(binding.key).second) continue;
        bound_at.push_back(now);
        if (seen.size() == 1) {
          first = now;
          cpu_first = cpu_now();
          out.load_1m = load_average_1m();
        }
        if (seen.size() == options.pods) {
          last = now;
          cpu_last = cpu_now();
          done = true;
        }
      }
    }
  });
  cluster.start_scheduler(extender_url.empty() ? std::nullopt : std::optional(extender_url),
                          options.scheduler_qps);
  testing::eventually([&] { return done.load(); },
                      std::chrono::milliseconds(static_cast<long>(options.timeout_s * 1000)));
  stamper.request_stop();
  stamper.join();
  out.bound = static_cast<unsigned>(seen.size());
  if (!done) {
    throw std::runtime_error(
        fmt::format("{} of {} pods bound within {} s", out.bound, options.pods, options.timeout_s));
  }
  out.first_to_last_s = Seconds(last - first).count();
  out.pods_per_s = out.first_to_last_s > 0 ? (out.bound - 1) / out.first_to_last_s : 0;
  std::vector<double> since_first;
  for (const auto at : bound_at) since_first.push_back(Seconds(at - first).count());
  std::sort(since_first.begin(), since_first.end());
  const auto rank = [&](double q) {
    return since_first[static_cast<std::size_t>(q * static_cast<double>(since_first.size() - 1))];
  };
  out.since_first = {rank(0.5), rank(0.99)};
  for (const auto& [comm, cpu] : cpu_last) {
    if (cpu_first.contains(comm)) out.cpu_s[comm] = cpu - cpu_first.at(comm);
  }
  out.cpu_ms_per_pod = cpu_ms_per_pod(cpu_first, cpu_last, out.bound);

  const std::string metrics = cluster.scheduler_metrics();
  out.attempt = quantiles(metrics, "scheduler_scheduling_attempt_duration_seconds",
                          {{"result", "scheduled"}});
  out.algorithm = quantiles(metrics, "scheduler_scheduling_algorithm_duration_seconds");
  out.queued = quantiles(metrics, "scheduler_pod_scheduling_duration_seconds");
  if (processes) {
    if (const auto pid = child_by_comm("netscore-collec"))
      out.collector_peak_rss_kb = process_peak_rss_kb(*pid).value_or(0);
  }
  if (!extender_url.empty()) {
    if (const auto pid = child_by_comm("netscore-extend"))
      out.extender_peak_rss_kb = process_peak_rss_kb(*pid).value_or(0);
    const std::string extender_metrics = testing::http_get(extender_url + "/metrics", 10s).body;
    out.prioritize_answered = prometheus_text::value(prometheus_text::parse(extender_metrics),
                                                     "netscore_extender_requests_total",
                                                     {{"verb", "prioritize"}, {"code", "200"}})
                                  .value_or(0);
    out.extender_server = quantiles(extender_metrics, "netscore_extender_request_duration_seconds",
                                    {{"verb", "prioritize"}});
    const auto port =
        static_cast<std::uint16_t>(std::stoul(extender_url.substr(extender_url.rfind(':') + 1)));
    const TcpConnections connections = server_connections(port);
    out.extender_established = connections.established;
    out.extender_time_wait = connections.time_wait;
  }
  return out;
}

}  // namespace netscore::sim
