// The original approach against netscore on the same real Prometheus and the same data:
//   BM_Collector_PerNodeQueries: one sum_over_time query per node, as the Go plugin's Score did
//     for every node in one scheduling cycle (sequential, one keep-alive connection, parsed);
//   BM_Collector_Refresh: one netscore refresh (one batched query, parse, normalise, publish).
// Each node count gets its own backfilled Prometheus (started before the runs, stopped after).
#include <unistd.h>

#include <curl/curl.h>

#include <ctime>
#include <map>
#include <memory>
#include <stdexcept>

#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/config.h"
#include "common/table/score_table_writer.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/scratch_table.h"
#include "tests/support/synth.h"

namespace {

using netscore::testing::PrometheusProcess;

const std::int64_t g_now_s = std::time(nullptr);
std::map<unsigned, std::unique_ptr<PrometheusProcess>> g_prometheus;

// 6 minutes of samples around now; the 5m window at now + 60 s lies inside them.
std::int64_t eval_time_ms() {
  return (g_now_s + 60) * 1000;
}

netscore::Config bench_config(unsigned nodes) {
  return netscore::load_config(netscore::Component::collector, {},
                               {{"NETSCORE_PROMETHEUS_URL", g_prometheus.at(nodes)->url()},
                                {"NETSCORE_INTERFACE", netscore::testing::kSynthInterface},
                                {"NETSCORE_TIME_RANGE", "5m"},
                                {"NETSCORE_CAPACITY", "8192"}});
}

void BM_Collector_PerNodeQueries(benchmark::State& state) {
  const auto nodes = static_cast<unsigned>(state.range(0));
  const netscore::Config config = bench_config(nodes);
  netscore::collector::PrometheusClient client({config.prometheus});
  std::vector<std::string> queries;
  for (const auto& n : netscore::testing::synth_nodes(nodes)) {
    queries.push_back(netscore::collector::build_per_node_query(config.query, n.name));
  }
  for (auto _ : state) {
    std::size_t answered = 0;
    for (const auto& q : queries) {
      const auto http = client.query(q, eval_time_ms());
      const auto parsed =
          netscore::collector::parse_vector_response(http.body, config.query.node_label);
      answered += parsed.samples.size();
    }
    if (answered != nodes) state.SkipWithError("a per-node query did not answer");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * nodes);
}

void BM_Collector_Refresh(benchmark::State& state) {
  const auto nodes = static_cast<unsigned>(state.range(0));
  const netscore::Config config = bench_config(nodes);
  const netscore::testing::ScratchTable shm("bench-collector");
  {
    netscore::ScoreTableWriter writer({.name = shm, .capacity = config.shm.capacity});
    netscore::collector::PrometheusClient client({config.prometheus});
    netscore::collector::Measurer measurer(config, client);
    netscore::collector::Publisher publisher(
        netscore::collector::Publisher::options(config, client.redacted_url()), writer);
    const auto no_wait = [](std::chrono::milliseconds) { return true; };
    for (auto _ : state) {
      const auto measurement = measurer.measure(eval_time_ms(), no_wait);
      publisher.publish(measurement);
      if (!measurement.ok || measurement.samples.size() != nodes)
        state.SkipWithError("refresh failed");
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * nodes);
}

}  // namespace

BENCHMARK(BM_Collector_PerNodeQueries)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Collector_Refresh)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::err);
  for (const unsigned nodes : {100U, 1000U, 5000U}) {
    g_prometheus[nodes] = std::make_unique<PrometheusProcess>(netscore::testing::SynthOptions{
        nodes, g_now_s + 120, 0.1, 15, netscore::testing::SynthLayout::kubernetes_node, {}});
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_prometheus.clear();
  curl_global_cleanup();
  return 0;
}
