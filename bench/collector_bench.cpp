// The original approach against netscore on the same real Prometheus and the same data:
//   BM_Collector_PerNodeQueries: one sum_over_time query per node, as the Go plugin's Score did
//     for every node in one scheduling cycle (sequential, one keep-alive connection, parsed);
//   BM_Collector_Refresh: one netscore refresh (one batched query, parse, normalise, publish);
//   BM_Collector_QueryCost: what Prometheus spends evaluating the batch with and without the link
//     utilisation parts (transmit rate, link speed, unusable speeds), as Prometheus itself reports
//     it (stats=all), the variants interleaved in every round so load on the machine hits all.
// Each node count gets its own backfilled Prometheus (started before the runs, stopped after),
// with the transmit counters and link speeds node-exporter publishes.
#include <unistd.h>

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/config.h"
#include "common/table/score_table_writer.h"
#include "tests/support/http_client.h"
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

netscore::Config bench_config(unsigned nodes, netscore::Environment extra = {}) {
  extra.emplace("NETSCORE_PROMETHEUS_URL", g_prometheus.at(nodes)->url());
  extra.emplace("NETSCORE_INTERFACE", netscore::testing::kSynthInterface);
  extra.emplace("NETSCORE_TIME_RANGE", "5m");
  extra.emplace("NETSCORE_CAPACITY", "8192");
  return netscore::load_config(netscore::Component::collector, {}, extra);
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

// Prometheus' own account of one evaluation (stats=all).
struct EvalStats {
  double eval_ms = 0;  // timings.evalTotalTime
  double samples = 0;  // samples.totalQueryableSamples: the points the evaluation read
};

std::string url_escaped(const std::string& text) {
  CURL* curl = curl_easy_init();
  char* escaped = curl_easy_escape(curl, text.data(), static_cast<int>(text.size()));
  std::string out(escaped);
  curl_free(escaped);
  curl_easy_cleanup(curl);
  return out;
}

std::optional<EvalStats> evaluate_with_stats(const std::string& url, const std::string& promql) {
  const auto reply = netscore::testing::http_request(
      {.method = "POST",
       .url = url + "/api/v1/query",
       .body = "stats=all&time=" + std::to_string(eval_time_ms() / 1000) +
               "&query=" + url_escaped(promql),
       .content_type = "application/x-www-form-urlencoded",
       .timeout = std::chrono::seconds(60)});
  rapidjson::Document doc;
  doc.Parse(reply.body.data(), reply.body.size());
  if (reply.status != 200 || doc.HasParseError() || !doc.IsObject() || !doc.HasMember("data"))
    return std::nullopt;
  const auto& data = doc["data"];
  if (!data.HasMember("stats") || data["result"].Empty()) return std::nullopt;
  const auto& stats = data["stats"];
  return EvalStats{.eval_ms = stats["timings"]["evalTotalTime"].GetDouble() * 1000,
                   .samples = stats["samples"]["totalQueryableSamples"].GetDouble()};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string tagged_union(const netscore::QueryConfig& query,
                         std::initializer_list<std::string_view> kinds) {
  std::string q;
  for (const auto kind : kinds) {
    if (!q.empty()) q += " or ";
    q += "label_replace(" + netscore::collector::build_part_query(query, kind) +
         ", \"netscore_kind\", \"" + std::string(kind) + "\", \"\", \"\")";
  }
  return q;
}

// range(0): nodes; range(1): 0 for the default NETSCORE_NODE_LABEL=auto (a label_replace chain
// per part), 1 for NETSCORE_NODE_LABEL=kubernetes_node. Each round asks every variant once, in
// an order that rotates from round to round; the counters are medians over the rounds, the ratios
// medians of each round's ratio.
void BM_Collector_QueryCost(benchmark::State& state) {
  namespace c = netscore::collector;
  const auto nodes = static_cast<unsigned>(state.range(0));
  netscore::Environment label;
  if (state.range(1) == 1) label.emplace("NETSCORE_NODE_LABEL", "kubernetes_node");
  const auto with = [&](netscore::Environment env) {
    env.insert(label.begin(), label.end());
    return bench_config(nodes, std::move(env)).query;
  };
  const auto rate = with({});
  const auto sum = with({{"NETSCORE_QUERY_FUNCTION", "sum_over_time"}});
  const auto sum_max =
      with({{"NETSCORE_QUERY_FUNCTION", "sum_over_time"}, {"NETSCORE_DIRECTION", "max"}});
  const std::string url = g_prometheus.at(nodes)->url();
  struct Variant {
    const char* name;
    std::string promql;
    std::vector<double> eval_ms{};
    double samples = 0;
  };
  // The queries before link utilisation (rate: the score alone, sum_over_time: score + rate),
  // the batches the collector now sends for the same settings, and the new parts alone.
  std::array<Variant, 7> variants{
      Variant{"rate_old", tagged_union(rate, {c::kKindScore})},
      Variant{"rate_new", c::build_batch_query(rate).promql},
      Variant{"sum_old", tagged_union(sum, {c::kKindScore, c::kKindRate})},
      Variant{"sum_max_new", c::build_batch_query(sum_max).promql},
      Variant{"part_transmit_rate", tagged_union(rate, {c::kKindTransmitRate})},
      Variant{"part_speed", tagged_union(rate, {c::kKindSpeed})},
      Variant{"part_unusable_speed", tagged_union(rate, {c::kKindUnusableSpeed})}};
  std::size_t round = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < variants.size(); ++i) {
      Variant& v = variants[(i + round) % variants.size()];
      const auto stats = evaluate_with_stats(url, v.promql);
      if (!stats) {
        const std::string message = std::string(v.name) + ": the query failed or answered nothing";
        state.SkipWithError(message.c_str());
        return;
      }
      v.eval_ms.push_back(stats->eval_ms);
      v.samples = stats->samples;
    }
    ++round;
  }
  for (const auto& v : variants) {
    state.counters[std::string(v.name) + "_ms"] = median(v.eval_ms);
    state.counters[std::string(v.name) + "_samples"] = v.samples;
  }
  const auto ratio = [&](std::size_t numerator, std::size_t denominator) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < variants[numerator].eval_ms.size(); ++r)
      ratios.push_back(variants[numerator].eval_ms[r] / variants[denominator].eval_ms[r]);
    return median(ratios);
  };
  state.counters["rate_new/old"] = ratio(1, 0);
  state.counters["sum_max_new/sum_old"] = ratio(3, 2);
  state.counters["sum_max_new/rate_old"] = ratio(3, 0);
}

}  // namespace

BENCHMARK(BM_Collector_QueryCost)
    ->Args({1000, 0})
    ->Args({1000, 1})
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->Iterations(15)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
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
    g_prometheus[nodes] = std::make_unique<PrometheusProcess>(
        netscore::testing::SynthOptions{.nodes = nodes,
                                        .end_s = g_now_s + 120,
                                        .hours = 0.1,
                                        .step_s = 15,
                                        .layout = netscore::testing::SynthLayout::kubernetes_node,
                                        .extra_metric = {},
                                        .links = true});
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_prometheus.clear();
  curl_global_cleanup();
  return 0;
}
