// The whole path a node's figures take, at 1,000, 5,000 and 10,000 nodes: the refresh's answer
// parsed (a real Prometheus 2.42's answers to the default refresh's two requests, captured once
// per size),
// published into the score table, and a /prioritize of 1,000 node names answered from it, as
// kube-scheduler asks with percentageOfNodesToScore's sample. The publish alone and the three
// in a row; the question is how the cost grows from 5,000 to 10,000 nodes.
#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <boost/beast/http/verb.hpp>
#include <spdlog/spdlog.h>

#include "bench/support/extender_fixture.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/prometheus/prometheus_client.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "extender/http/handlers.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/scratch_table.h"
#include "tests/support/synth.h"

namespace {

namespace nc = netscore::collector;
namespace http = boost::beast::http;

constexpr std::size_t kAskedNames = 1000;
const std::int64_t g_now_s = std::time(nullptr);

// One node count: its captured answers, the query they answer, a table and a prioritize request.
struct Size {
  std::string answer;
  std::string transmit_answer;
  nc::BuiltQuery query;
  std::int64_t eval_time_ms = 0;
  std::string request;
};

std::map<unsigned, Size> g_sizes;

netscore::Config collector_config(const std::string& prometheus_url) {
  return netscore::load_config(netscore::Component::collector, {},
                               {{"NETSCORE_PROMETHEUS_URL", prometheus_url},
                                {"NETSCORE_INTERFACE", netscore::testing::kSynthInterface},
                                {"NETSCORE_TIME_RANGE", "5m"}});
}

// Prometheus runs only while the answer is captured: its CPU stays out of the timings.
const Size& size_for(unsigned nodes) {
  auto [it, added] = g_sizes.try_emplace(nodes);
  if (!added) return it->second;
  Size& size = it->second;
  netscore::testing::PrometheusProcess prometheus(
      netscore::testing::benchmark_links(nodes, g_now_s));
  const netscore::Config config = collector_config(prometheus.url());
  // What the query plan settles on for node-exporter series of one device labelled by node.
  size.query =
      nc::build_batch_query(config.query, {.node_label = "kubernetes_node", .per_series = true});
  size.eval_time_ms = (g_now_s + 60) * 1000;
  nc::PrometheusClient client({config.prometheus});
  size.answer = client.query(size.query.promql, size.eval_time_ms).body;
  size.transmit_answer = client.query(size.query.transmit_promql, size.eval_time_ms).body;
  std::vector<std::string> asked;
  const auto all = netscore::testing::synth_nodes(nodes);
  for (std::size_t i = 0; i < kAskedNames; ++i) asked.push_back(all[i * nodes / kAskedNames].name);
  size.request = netscore::bench::names_body(asked);
  return size;
}

nc::Measurement measurement(const Size& size) {
  nc::ParsedVector parsed = nc::parse_batch_response(size.answer, size.transmit_answer, size.query);
  nc::Measurement m;
  m.ok = parsed.ok() && !parsed.samples.empty();
  m.nodes.queried = m.nodes.answered = true;
  m.eval_time_ms = size.eval_time_ms;
  m.nodes.samples = std::move(parsed.samples);
  m.nodes.series = parsed.series;
  return m;
}

// A publisher, its table and the extender's view of it, for one size.
struct Path {
  explicit Path(unsigned nodes)
      : size(size_for(nodes)),
        table("bench-path"),
        writer({.name = table.str(), .capacity = 16384}),
        publisher(nc::Publisher::options(
                      netscore::load_config(netscore::Component::collector, {}, {}), {}),
                  writer),
        attachment(netscore::ScoreTableReader::Options{.name = table.str()}),
        shared(1, 4096, 32768) {
    extender_config.shm.name = table.str();
    extender_config.max_age = {std::chrono::hours(1), "1h"};
    publisher.publish(measurement(size));
    attachment.poll();
  }

  bool prioritize() {
    buffer = size.request;
    const auto response = handlers.handle(http::verb::post, "/prioritize", buffer, attachment,
                                          netscore::mono_now_ns());
    benchmark::DoNotOptimize(response.body.data());
    return response.status == 200;
  }

  const Size& size;
  netscore::testing::ScratchTable table;
  netscore::ScoreTableWriter writer;
  nc::Publisher publisher;
  netscore::TableAttachment attachment;
  // The extender's defaults (decisions recorded for /explain included).
  netscore::Config extender_config = netscore::load_config(netscore::Component::extender, {}, {});
  netscore::extender::SharedState shared;
  netscore::extender::Handlers handlers{extender_config, shared, 0};
  std::string buffer;
};

void BM_Path_Publish(benchmark::State& state) {
  Path path(static_cast<unsigned>(state.range(0)));
  const nc::Measurement m = measurement(path.size);
  for (auto _ : state) path.publisher.publish(m);
}

void BM_Path_Whole(benchmark::State& state) {
  Path path(static_cast<unsigned>(state.range(0)));
  for (auto _ : state) {
    path.publisher.publish(measurement(path.size));
    if (!path.prioritize()) state.SkipWithError("prioritize failed");
  }
}

#define NODE_COUNTS ->Arg(1000)->Arg(5000)->Arg(10000)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_Path_Publish) NODE_COUNTS;
BENCHMARK(BM_Path_Whole) NODE_COUNTS;

}  // namespace

int main(int argc, char** argv) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  int status = 0;
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    status = 1;
  } else {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }
  curl_global_cleanup();
  return status;
}
