// What the traffic per pod costs against the refresh's own query, at 5,000 nodes x 30 pods, on a
// real Prometheus holding node-exporter's series as kube-prometheus labels them and 150,000 pod
// sandboxes' cAdvisor series as kube-prometheus scrapes kubelet's /metrics/cadvisor (every 30 s),
// plus each node's root-cgroup series. Each round is one collector refresh (Measurer) in which the
// read of every pod is due: the refresh's query, the read of every pod, and the recent pods' read
// of `recent` pods bound 20 s before (state.range(0)). Figures are Prometheus' own evaluation
// times from its query log and the collector's wall times, medians over the rounds; the
// amortised cost per refresh uses the interval the reader chose from what its reads took.
#include <curl/curl.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include "bench/micro/query_log.h"
#include "collector/kube/cluster_state.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/recent_pod_traffic.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/duration.h"
#include "common/model_settings.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace {

using netscore::bench::both_directions;
using netscore::bench::median;
using netscore::testing::PrometheusProcess;

constexpr unsigned kNodes = 5000;
constexpr unsigned kPodsPerNode = 30;
constexpr unsigned kNamespaces = 50;
constexpr std::int64_t kPodStepS = 30;  // kube-prometheus' kubelet cAdvisor scrape interval

const std::int64_t g_now_s = std::time(nullptr);
std::unique_ptr<PrometheusProcess> g_prometheus;

// The refreshes evaluate here: the 5m window lies inside both kinds of series.
std::int64_t eval_time_ms() {
  return (g_now_s + 60) * 1000;
}

std::string pod_namespace(unsigned node, unsigned k) {
  char name[16];
  std::snprintf(name, sizeof name, "team-%02u", (node * kPodsPerNode + k) % kNamespaces);
  return name;
}

std::string pod_name(unsigned node, unsigned k) {
  char name[32];
  std::snprintf(name, sizeof name, "app-%04u-%02u-x7k2q", node, k);
  return name;
}

// The cAdvisor families after node-exporter's, in one OpenMetrics file: the pod sandboxes'
// (container="", eth0) and each node's root cgroup (id="/", no pod labels), counters growing at
// a rate of their own from 5.5 minutes before the evaluation to a minute after it.
void write_cadvisor(std::ostream& out, const std::vector<netscore::testing::SynthNode>& nodes) {
  const std::int64_t first_s = g_now_s + 60 - 330;
  const std::int64_t last_s = g_now_s + 120;
  char line[512];
  for (const bool receive : {true, false}) {
    const char* family =
        receive ? "container_network_receive_bytes" : "container_network_transmit_bytes";
    out << "# HELP " << family << " Cumulative count of bytes.\n# TYPE " << family << " counter\n";
    for (unsigned n = 0; n < nodes.size(); ++n) {
      const std::string& node = nodes[n].name;
      const std::string common = "endpoint=\"https-metrics\",instance=\"10.0." +
                                 std::to_string(n / 250) + "." + std::to_string(n % 250) +
                                 ":10250\",job=\"kubelet\",metrics_path=\"/metrics/cadvisor\","
                                 "node=\"" +
                                 node + "\",service=\"kubelet\"";
      for (unsigned k = 0; k <= kPodsPerNode; ++k) {
        const bool root = k == kPodsPerNode;
        const std::string labels =
            root ? common + ",id=\"/\",interface=\"ens5\""
                 : common + ",container=\"\",id=\"/kubepods/burstable/pod" +
                       std::to_string(n * kPodsPerNode + k) + "\",interface=\"eth0\",namespace=\"" +
                       pod_namespace(n, k) + "\",pod=\"" + pod_name(n, k) + "\"";
        const double rate = (root ? 5e7 : 1e4 * (1 + (n * 7 + k) % 97)) * (receive ? 1.0 : 0.6);
        for (std::int64_t t = first_s; t <= last_s; t += kPodStepS) {
          std::snprintf(line, sizeof line, "%s_total{%s} %.17g %lld\n", family, labels.c_str(),
                        rate * static_cast<double>(t - first_s + kPodStepS),
                        static_cast<long long>(t));
          out << line;
        }
      }
    }
  }
}

PrometheusProcess& prometheus() {
  if (!g_prometheus) {
    const std::string dir = netscore::testing::make_temp_dir("bench-pod-traffic");
    const std::string file = dir + "/all.om";
    {
      std::ostringstream nodes_text;
      netscore::testing::write_openmetrics(
          {.nodes = kNodes,
           .end_s = g_now_s + 120,
           .hours = 0.1,
           .step_s = 15,
           .layout = netscore::testing::SynthLayout::kube_prometheus,
           .extra_metric = {},
           .links = true},
          nodes_text);
      std::string text = nodes_text.str();
      text.erase(text.rfind("# EOF"));
      std::ofstream out(file);
      out << text;
      write_cadvisor(out, netscore::testing::synth_nodes(kNodes));
      out << "# EOF\n";
    }
    g_prometheus = std::make_unique<PrometheusProcess>(
        file,
        netscore::testing::ServeOptions{
            .route_prefix = {}, .web_config = {}, .probe = {}, .rules = {}, .query_log = true});
    std::filesystem::remove_all(dir);
  }
  return *g_prometheus;
}

void BM_PodTraffic_ReadCost(benchmark::State& state) {
  namespace c = netscore::collector;
  const auto recent_pods = static_cast<unsigned>(state.range(0));
  PrometheusProcess& p = prometheus();
  // The recheck far away: each round's requests are the refresh's and the per-pod reads alone.
  netscore::Config config =
      netscore::load_config(netscore::Component::collector, {},
                            {{"NETSCORE_PROMETHEUS_URL", p.url()},
                             {"NETSCORE_INTERFACE", netscore::testing::kSynthInterface},
                             {"NETSCORE_MAX_NODES", "8192"},
                             {"NETSCORE_PROMETHEUS_TIMEOUT", "60s"}});
  config.recheck_interval = netscore::prom_duration(std::chrono::hours(1000));
  c::ClusterState cluster;
  const auto nodes = netscore::testing::synth_nodes(kNodes);
  for (unsigned n = 0; n < kNodes; ++n) {
    for (unsigned k = 0; k < kPodsPerNode; ++k) {
      // The first `recent_pods` pods of the spread bound 20 s before the evaluation, the rest
      // long before: priced by the read of every pod.
      const unsigned index = n * kPodsPerNode + k;
      const bool recent = index % (kNodes * kPodsPerNode / recent_pods) == 0 &&
                          index / (kNodes * kPodsPerNode / recent_pods) < recent_pods;
      cluster.upsert_pod({.uid = std::to_string(index),
                          .node = nodes[n].name,
                          .name = pod_namespace(n, k) + "/" + pod_name(n, k)},
                         recent ? eval_time_ms() - 20'000 : eval_time_ms() - 3'000'000);
    }
  }
  // As every publish does: the pods whose traffic the window holds wholly are no longer recent.
  cluster.loads(netscore::load_window(config, eval_time_ms()));
  c::PrometheusClient client({config.prometheus, 256U << 20, "netscore-bench"});
  std::int64_t offset_ms = 0;
  c::Measurer measurer(config, client,
                       {.retries = 0,
                        .clock = [&offset_ms] { return netscore::mono_now_ms() + offset_ms; },
                        .cluster = &cluster});
  const auto no_wait = [](std::chrono::milliseconds) { return true; };
  // The first refresh asks the side questions; not counted.
  c::Measurement m = measurer.measure(eval_time_ms(), no_wait);
  std::vector<double> node_wall, full_wall, recent_wall, refreshes;
  std::size_t rounds = 0;
  for (auto _ : state) {
    // The read of every pod due at every round.
    offset_ms += m.pod_traffic.interval_ms;
    m = measurer.measure(eval_time_ms(), no_wait);
    if (!m.ok || !m.pod_traffic.every_pod ||
        m.pod_traffic.every_pod->pods.size() != kNodes * kPodsPerNode ||
        m.pod_traffic.recent->answered != recent_pods) {
      state.SkipWithError("a refresh failed or a read did not answer every pod");
      return;
    }
    ++rounds;
    node_wall.push_back(m.pod_traffic.costs.node_ms);
    full_wall.push_back(m.pod_traffic.costs.full_ms);
    recent_wall.push_back(m.pod_traffic.costs.recent_ms);
    refreshes.push_back(static_cast<double>(m.pod_traffic.interval_ms) /
                        static_cast<double>(config.refresh_interval.value.count()));
  }
  const std::string log = p.query_log();
  const auto node_ms =
      both_directions(log, measurer.query().promql, measurer.query().transmit_promql, rounds);
  const auto full_ms = both_directions(log, m.pod_traffic.every_pod->receive_query,
                                       m.pod_traffic.every_pod->transmit_query, rounds);
  const auto recent_ms = both_directions(log, m.pod_traffic.recent->receive_query,
                                         m.pod_traffic.recent->transmit_query, rounds);
  if (node_ms.empty() || full_ms.empty() || recent_ms.empty()) {
    state.SkipWithError("the query log does not hold every round's queries");
    return;
  }
  const double n = median(refreshes);
  const double amortised = median(full_ms) / n + median(recent_ms);
  state.counters["node_ms"] = median(node_ms);
  state.counters["full_ms"] = median(full_ms);
  state.counters["recent_ms"] = median(recent_ms);
  state.counters["auto_refreshes"] = n;
  state.counters["amortised_ms"] = amortised;
  state.counters["amortised/node"] = amortised / median(node_ms);
  state.counters["every4/node"] = (median(full_ms) / 4 + median(recent_ms)) / median(node_ms);
  state.counters["node_wall_ms"] = median(node_wall);
  state.counters["full_wall_ms"] = median(full_wall);
  state.counters["recent_wall_ms"] = median(recent_wall);
  state.counters["amortised_wall/node_wall"] =
      (median(full_wall) / n + median(recent_wall)) / median(node_wall);
}

}  // namespace

BENCHMARK(BM_PodTraffic_ReadCost)
    ->Arg(50)
    ->Arg(256)
    ->Iterations(7)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::err);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_prometheus.reset();
  curl_global_cleanup();
  return 0;
}
