// The Kubernetes watcher at cluster scale (100,000 bound pods on 5,000 nodes):
//   BM_Watcher_ListIntoState: parse every list page of pods and nodes and replace the state, as a
//     relist does (pages prebuilt: the fake server's own cost is not measured); counters give the
//     state's resident memory and the CPU time;
//   BM_Watcher_Event: one pod watch event line parsed and applied;
//   BM_Watcher_Loads/<recent>: the per-node aggregation a publish runs, with <recent> of the pods
//     placed within the window (the others are only counted);
//   BM_Watcher_BindToTable: a binding at the fake API server until the table shows it through a
//     ScoreTableReader (watch event -> state -> publisher -> shared memory), p50/p99.
#include <curl/curl.h>
#include <sys/resource.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <thread>

#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/kube/kube_objects.h"
#include "collector/pipeline/publisher.h"
#include "common/model/inputs.h"
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

kube::Pod pod(int i, std::int64_t created_s) {
  return kube::Pod{.ns = "bench",
                   .name = "pod-" + std::to_string(i),
                   .uid = "0b6f3c2e-uid-" + std::to_string(i),
                   .resource_version = static_cast<std::uint64_t>(1000 + i),
                   .node = node_name(i % kNodes),
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

void BM_Watcher_Loads(benchmark::State& state) {
  nc::ClusterState cluster;
  std::vector<nc::PodFacts> pods;
  // Placed an hour ago, except the last `recent` pods, placed within the window.
  const auto recent = static_cast<int>(state.range(0));
  constexpr std::int64_t kNowMs = 3600000;
  for (int i = 0; i < kPods; ++i) {
    pods.push_back({.uid = std::to_string(i),
                    .node = node_name(i % kNodes),
                    .scheduled_ms = i < kPods - recent ? 1 : kNowMs - i % 1000});
  }
  cluster.replace_pods(pods, kNowMs);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        cluster.loads({.now_ms = kNowMs, .lag_ms = 15000, .window_ms = 300000}));
  }
  state.counters["recent"] = static_cast<double>(cluster.recent_count());
}

void BM_Watcher_BindToTable(benchmark::State& state) {
  netscore::testing::FakeKubeApiServer server;
  const std::int64_t hour_ago = std::time(nullptr) - 3600;
  for (int i = 0; i < kNodes; ++i) server.put_node(node_name(i));
  for (int i = 0; i < kPods; ++i) server.create_pod(pod(i, hour_ago));
  const netscore::testing::ScratchTable table("watcher-bench");
  netscore::ScoreTableWriter writer({.name = table, .capacity = 8192});
  nc::ClusterState cluster;
  nc::Publisher* publisher_ptr = nullptr;
  nc::ClusterWatcher watcher(
      {.kube = {.url = server.url()}, .on_change = [&] { publisher_ptr->cluster_changed(); }},
      cluster);
  nc::Publisher publisher({.correction = {.enabled = true,
                                          .function = netscore::QueryFunction::rate,
                                          .window_ms = 300000}},
                          writer, nc::Publisher::Cluster{cluster, watcher});
  publisher_ptr = &publisher;
  std::vector<netscore::model::NodeSample> samples;
  for (int i = 0; i < kNodes; ++i) samples.push_back({.node = node_name(i), .value = 20000});
  publisher.start();
  watcher.start();
  publisher.publish({.ok = true, .eval_time_ms = 1, .samples = samples});
  if (!netscore::testing::eventually(
          [&] {
            return watcher.status().state == netscore::shm::WatchState::synced &&
                   cluster.pod_count() == kPods;
          },
          std::chrono::minutes(2))) {
    state.SkipWithError("watcher did not sync");
    return;
  }
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
      std::this_thread::yield();  // two cores: leave them to the watcher and the publisher
      reader.lookup(names, out, meta);
    } while (out[0].placed_pods == before && std::chrono::steady_clock::now() < give_up);
    latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  watcher.stop();
  publisher.stop();
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const auto at = [&](double q) {
    return latencies_ms[static_cast<std::size_t>(q * static_cast<double>(latencies_ms.size() - 1))];
  };
  state.counters["p50_ms"] = at(0.5);
  state.counters["p99_ms"] = at(0.99);
  state.counters["max_ms"] = latencies_ms.back();
}

}  // namespace

BENCHMARK(BM_Watcher_ListIntoState)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Watcher_Event);
BENCHMARK(BM_Watcher_Loads)->Arg(0)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Watcher_BindToTable)->Iterations(300)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  curl_global_cleanup();
  return 0;
}
