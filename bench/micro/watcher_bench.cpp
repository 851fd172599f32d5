// The Kubernetes watcher at cluster scale (100,000 bound pods on 5,000 nodes):
//   BM_Watcher_ListIntoState: parse every list page of pods and nodes and replace the state, as a
//     relist does (pages prebuilt: the fake server's own cost is not measured); counters give the
//     state's resident memory and the CPU time;
//   BM_Watcher_Event: one pod watch event line parsed and applied;
//   BM_Watcher_BindToTable/<refreshing>: a binding at the fake API server until the table shows
//     it through a ScoreTableReader (watch event -> state -> publisher -> shared memory),
//     p50/p99/max; with refreshing 1 a measurement of every node is published every 50 ms (a
//     refresh interval shortened so that the bindings meet a hundred), workload learning on, as
//     in service without per-pod series;
//   BM_Watcher_PodEventCost/<nodes>/<bindings per s>: a backlog of 500 bindings at that pace
//     until the table shows them all; the collector's own threads' CPU per binding (watch
//     decode, state update, republishes), and the publishes per binding;
//   BM_Watcher_BindingDuringFit/<nodes>/<fitting>: how long a binding's write to the cluster state
//     takes (p50/p99/max) while workload learning fits the same state every 50 ms (fitting 1), as
//     it does once per refresh, against the same writes with no fit running (0) in the same run.
#include <curl/curl.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/kube/kube_objects.h"
#include "collector/pipeline/publisher.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "common/model_settings.h"
#include "common/table/score_table_reader.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_kube_apiserver.h"
#include "tests/support/fake_kube_objects.h"
#include "tests/support/scratch_table.h"

namespace {

namespace nc = netscore::collector;
namespace kube = netscore::testing::kube;

constexpr int kPods = 100000;
constexpr int kNodes = 5000;

std::string node_name(int i) {
  return "node-" + std::to_string(i);
}

kube::Pod pod(int i, std::int64_t created_s, int nodes = kNodes) {
  return kube::Pod{.ns = "bench",
                   .name = "pod-" + std::to_string(i),
                   .uid = "0b6f3c2e-uid-" + std::to_string(i),
                   .resource_version = static_cast<std::uint64_t>(1000 + i),
                   .node = node_name(i % nodes),
                   .phase = "Running",
                   .labels = {{"app", "web-" + std::to_string(i % 50)}},
                   .annotations = {{"netscore.io/expected-receive-rate", "1000"}},
                   .created_s = created_s,
                   .scheduled_s = created_s};
}

std::vector<std::string> pod_pages() {
  std::vector<std::string> pages;
  const std::int64_t hour_ago = std::time(nullptr) - 3600;
  for (int first = 0; first < kPods; first += 500) {
    std::string page =
        R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[)";
    for (int i = first; i < std::min(kPods, first + 500); ++i) {
      if (i > first) page += ',';
      page += kube::to_json(pod(i, hour_ago), false);
    }
    pages.push_back(page + "]}");
  }
  return pages;
}

long rss_kb() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

double cpu_s() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// p50, p99 and max of `latencies` as counters, named with their `unit`.
void report_latencies(benchmark::State& state, std::vector<double>& latencies,
                      const std::string& unit) {
  std::sort(latencies.begin(), latencies.end());
  const auto at = [&](double q) {
    return latencies[static_cast<std::size_t>(q * static_cast<double>(latencies.size() - 1))];
  };
  state.counters["p50_" + unit] = at(0.5);
  state.counters["p99_" + unit] = at(0.99);
  state.counters["max_" + unit] = latencies.back();
}

void BM_Watcher_ListIntoState(benchmark::State& state) {
  const std::vector<std::string> pages = pod_pages();
  std::vector<nc::NodeFacts> nodes;
  for (int i = 0; i < kNodes; ++i) nodes.push_back({.name = node_name(i)});
  double cpu = 0;
  long rss = 0;
  for (auto _ : state) {
    const long rss_before = rss_kb();
    const double cpu_before = cpu_s();
    nc::ClusterState cluster;
    std::vector<nc::PodFacts> pods;
    for (const auto& page : pages) {
      rapidjson::Document doc;
      doc.Parse(page.c_str());
      for (const auto& item : doc["items"].GetArray()) {
        if (auto p = nc::parse_pod(item)) pods.push_back(std::move(*p));
      }
    }
    cluster.replace_pods(pods, std::time(nullptr) * 1000);
    cluster.replace_nodes(nodes);
    pods = {};
    cpu = cpu_s() - cpu_before;
    rss = rss_kb() - rss_before;
    benchmark::DoNotOptimize(cluster.pod_count());
    if (cluster.pod_count() != kPods) state.SkipWithError("pods lost");
  }
  state.counters["state_rss_MB"] = static_cast<double>(rss) / 1024.0;
  state.counters["cpu_s"] = cpu;
  state.SetItemsProcessed(state.iterations() * kPods);
}

void BM_Watcher_Event(benchmark::State& state) {
  nc::ClusterState cluster;
  std::vector<std::string> lines;
  for (int i = 0; i < 1000; ++i) {
    lines.push_back(R"({"type":"MODIFIED","object":)" +
                    kube::to_json(pod(i, std::time(nullptr)), true) + "}");
  }
  std::size_t i = 0;
  for (auto _ : state) {
    rapidjson::Document doc;
    const std::string& line = lines[i++ % lines.size()];
    doc.Parse(line.c_str());
    auto p = nc::parse_pod(doc["object"]);
    cluster.upsert_pod(*p, 1);
  }
  state.SetItemsProcessed(state.iterations());
}

// The collector's cluster half in process against the fake API server: `nodes` nodes with
// `pods` bound pods placed an hour ago, a watch and a publisher with the correction on, and one
// measurement of every node published.
struct WatchedCluster {
  WatchedCluster(int nodes, int pods) {
    const std::int64_t hour_ago = std::time(nullptr) - 3600;
    for (int i = 0; i < nodes; ++i) server.put_node(node_name(i));
    for (int i = 0; i < pods; ++i) server.create_pod(pod(i, hour_ago, nodes));
    for (int i = 0; i < nodes; ++i)
      samples.push_back({.node = node_name(i), .value = 20000, .rate = 20000, .rate_valid = true});
    publisher.start();
    watcher.start();
    publisher.publish({.ok = true, .eval_time_ms = 1, .nodes = {.samples = samples}});
    synced = netscore::testing::eventually(
        [&] {
          return watcher.status().state == netscore::shm::WatchState::synced &&
                 cluster.pod_count() == static_cast<std::size_t>(pods);
        },
        std::chrono::minutes(2));
  }
  ~WatchedCluster() {
    watcher.stop();
    publisher.stop();
  }

  netscore::testing::FakeKubeApiServer server;
  const netscore::testing::ScratchTable table{"watcher-bench"};
  netscore::ScoreTableWriter writer{{.name = table, .capacity = 8192}};
  nc::ClusterState cluster;
  nc::ClusterWatcher watcher{
      {.kube = {.url = server.url()}, .on_change = [this] { publisher.cluster_changed(); }},
      cluster};
  nc::Publisher publisher{
      {.correction = {.enabled = true,
                      .function = netscore::QueryFunction::rate,
                      .window_ms = 300000,
                      .learn_workloads = netscore::model::WorkloadLearning::on}},
      writer,
      nc::Publisher::Cluster{cluster, watcher}};
  std::vector<netscore::model::NodeSample> samples;  // every node's measurement
  bool synced = false;
};

void BM_Watcher_BindToTable(benchmark::State& state) {
  WatchedCluster c(kNodes, kPods);
  if (!c.synced) {
    state.SkipWithError("watcher did not sync");
    return;
  }
  std::atomic<bool> stop = false;
  std::jthread refreshes([&] {
    std::int64_t eval_time_ms = 1;
    for (auto next = std::chrono::steady_clock::now(); state.range(0) != 0 && !stop;) {
      c.publisher.publish(
          {.ok = true, .eval_time_ms = ++eval_time_ms, .nodes = {.samples = c.samples}});
      next += std::chrono::milliseconds(50);
      std::this_thread::sleep_until(next);
    }
  });
  auto& server = c.server;
  const auto& table = c.table;
  netscore::ScoreTableReader reader({.name = table});
  std::vector<double> latencies_ms;
  int next = 0;
  for (auto _ : state) {
    const int n = next++;
    const std::string name = node_name(n % kNodes);
    server.create_pod(kube::Pod{.ns = "bench", .name = "new-" + std::to_string(n)});
    const std::string_view names[] = {name};
    netscore::NodeScore out[1];
    netscore::shm::SnapshotMeta meta{};
    reader.lookup(names, out, meta);
    const std::uint32_t before = out[0].placed_pods;
    const auto t0 = std::chrono::steady_clock::now();
    server.bind_pod("bench", "new-" + std::to_string(n), name);
    const auto give_up = t0 + std::chrono::seconds(5);
    do {
      // Polled, not spun: on two cores a spinning reader took the core the watcher and the
      // publisher share while a refresh's fit held the other, and its tail was its own.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      reader.lookup(names, out, meta);
    } while (out[0].placed_pods == before && std::chrono::steady_clock::now() < give_up);
    latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  stop = true;
  report_latencies(state, latencies_ms, "ms");
}

// CPU time so far of the collector's threads (the watcher's and the publisher's, named "ns-...").
std::int64_t collector_cpu_ns() {
  std::int64_t total = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (!name.starts_with("ns-")) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    std::int64_t on_cpu_ns = 0;
    schedstat >> on_cpu_ns;
    total += on_cpu_ns;
  }
  return total;
}

std::uint32_t table_placed_pods(const netscore::ScoreTableReader& reader) {
  std::vector<netscore::TableRow> rows;
  netscore::shm::SnapshotMeta meta{};
  if (reader.read_all(rows, meta) != netscore::ReadStatus::ok) return 0;
  std::uint32_t placed = 0;
  for (const auto& row : rows) placed += row.score.placed_pods;
  return placed;
}

void BM_Watcher_PodEventCost(benchmark::State& state) {
  const auto nodes = static_cast<int>(state.range(0));
  const auto per_second = state.range(1);
  constexpr int kBacklog = 500;
  WatchedCluster c(nodes, 20 * nodes);
  if (!c.synced) {
    state.SkipWithError("watcher did not sync");
    return;
  }
  netscore::ScoreTableReader reader({.name = c.table});
  int bound = 0;
  std::int64_t cpu_ns = 0;
  std::uint64_t publishes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    // Unbound pods are outside the collector's field selector: creating them costs it nothing.
    for (int i = bound; i < bound + kBacklog; ++i)
      c.server.create_pod(kube::Pod{.ns = "bench", .name = "new-" + std::to_string(i)});
    state.ResumeTiming();
    const std::int64_t cpu_before = collector_cpu_ns();
    const std::uint64_t publishes_before = c.publisher.publishes();
    auto next = std::chrono::steady_clock::now();
    for (int i = bound; i < bound + kBacklog; ++i) {
      std::this_thread::sleep_until(next);
      next += std::chrono::nanoseconds(1'000'000'000 / per_second);
      c.server.bind_pod("bench", "new-" + std::to_string(i), node_name(i % nodes));
    }
    bound += kBacklog;
    if (!netscore::testing::eventually(
            [&] { return table_placed_pods(reader) == static_cast<std::uint32_t>(bound); },
            std::chrono::minutes(1))) {
      state.SkipWithError("the table did not show every binding");
      return;
    }
    cpu_ns += collector_cpu_ns() - cpu_before;
    publishes += c.publisher.publishes() - publishes_before;
  }
  const double events = static_cast<double>(bound);
  state.counters["cpu_us_per_event"] = static_cast<double>(cpu_ns) / 1e3 / events;
  state.counters["publishes_per_event"] = static_cast<double>(publishes) / events;
}

// 15 settled pods per node in workloads of 25, each node measured at its background plus its pods'
// traffic: what the fit reads at every refresh.
void BM_Watcher_BindingDuringFit(benchmark::State& state) {
  const auto nodes = static_cast<int>(state.range(0));
  const bool fitting = state.range(1) != 0;
  constexpr int kPodsPerNode = 15;
  constexpr int kPodsPerWorkload = 25;
  constexpr std::int64_t kNowMs = 10'000'000'000;
  // The shipped lag and window.
  const netscore::model::LoadWindow window =
      netscore::load_window(netscore::load_config(netscore::Component::collector, {}, {}), kNowMs);
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> background(13.8, 0.5);
  std::lognormal_distribution<double> per_pod(12.2, 1.0);
  nc::ClusterState cluster;
  std::vector<netscore::model::NodeRate> measured(static_cast<std::size_t>(nodes));
  for (int n = 0; n < nodes; ++n) {
    cluster.upsert_node({.name = node_name(n)});
    measured[static_cast<std::size_t>(n)] = {.node = node_name(n), .rate = background(random)};
  }
  std::vector<double> workload_rate(nodes * kPodsPerNode / kPodsPerWorkload + 1);
  for (double& rate : workload_rate) rate = per_pod(random);
  for (int p = 0; p < nodes * kPodsPerNode; ++p) {
    cluster.upsert_pod({.uid = "uid-" + std::to_string(p),
                        .node = node_name(p % nodes),
                        .workload = "bench/Deployment/w-" + std::to_string(p / kPodsPerWorkload),
                        .name = "bench/pod-" + std::to_string(p)},
                       kNowMs - 3'600'000);
    measured[static_cast<std::size_t>(p % nodes)].rate +=
        workload_rate[static_cast<std::size_t>(p / kPodsPerWorkload)];
  }
  // The publisher's loads() finds the settled pods settled (at every publish, in service), and
  // twelve fits give the learner a full history.
  cluster.loads(window);
  for (int i = 0; i < 12; ++i) cluster.learn(measured, window);
  std::atomic<bool> stop = false;
  // A fit every 50 ms: a refresh interval shortened so that the bindings meet a hundred fits (a
  // fit back to back would hold an unfair mutex from the writer for as long as it loops).
  std::jthread fits([&] {
    for (auto next = std::chrono::steady_clock::now(); fitting && !stop;) {
      cluster.learn(measured, window);
      next += std::chrono::milliseconds(50);
      std::this_thread::sleep_until(next);
    }
  });
  std::vector<double> latencies_us;
  int next = 0;
  for (auto _ : state) {
    const int n = next++;
    const netscore::model::PodFacts binding{.uid = "new-" + std::to_string(n),
                                            .node = node_name(n % nodes),
                                            .workload = "bench/Deployment/new",
                                            .name = "bench/new-" + std::to_string(n)};
    const auto t0 = std::chrono::steady_clock::now();
    cluster.upsert_pod(binding, kNowMs);
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    // Bindings spread over the fits' phases, as they arrive independently of the refresh.
    std::this_thread::sleep_for(std::chrono::microseconds(200 + random() % 800));
  }
  stop = true;
  report_latencies(state, latencies_us, "us");
}

}  // namespace

BENCHMARK(BM_Watcher_ListIntoState)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Watcher_Event);
BENCHMARK(BM_Watcher_BindToTable)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(300)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Watcher_BindingDuringFit)
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->Iterations(3000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_Watcher_PodEventCost)
    ->Args({1000, 100})
    ->Args({5000, 100})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char** argv) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  curl_global_cleanup();
  return 0;
}
