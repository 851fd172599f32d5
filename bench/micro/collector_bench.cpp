// netscore's refresh on a real Prometheus (BM_Collector_RefreshCost): what Prometheus spends
// evaluating a default refresh, and a refresh reading node-exporter's recording rules, against the
// seed's query batched over every node, as Prometheus' query log reports it, interleaved in every
// round so load hits all alike; and each refresh's whole time (measure + publish).
#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include "bench/micro/query_log.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/prometheus/query_builder.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/table/score_table_writer.h"
#include "tests/support/eventually.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/scratch_table.h"
#include "tests/support/synth.h"

namespace {

using netscore::bench::both_directions;
using netscore::bench::logged_eval_ms;
using netscore::bench::median;
using netscore::testing::PrometheusProcess;

const std::int64_t g_now_s = std::time(nullptr);

// node-exporter's mixin rules for the physical devices, as kube-prometheus loads them.
constexpr const char* kMixinRules = R"(groups:
  - name: node-exporter.rules
    interval: 15s
    rules:
      - record: instance:node_network_receive_bytes_physical:rate5m
        expr: sum without (device) (rate(node_network_receive_bytes_total{job="node-exporter", device!~"lo|veth.+"}[5m]))
      - record: instance:node_network_transmit_bytes_physical:rate5m
        expr: sum without (device) (rate(node_network_transmit_bytes_total{job="node-exporter", device!~"lo|veth.+"}[5m]))
)";

// 5000 nodes as kube-prometheus scrapes them (instance = node name, job node-exporter), 8 minutes
// back and 10 ahead of the start, the mixin's rules evaluated live, and the query log on.
std::unique_ptr<PrometheusProcess> g_rules_prometheus;

PrometheusProcess& rules_prometheus() {
  if (!g_rules_prometheus) {
    g_rules_prometheus = std::make_unique<PrometheusProcess>(
        netscore::testing::SynthOptions{.nodes = 5000,
                                        .end_s = g_now_s + 600,
                                        .hours = 0.3,
                                        .step_s = 15,
                                        .layout = netscore::testing::SynthLayout::kube_prometheus,
                                        .extra_metric = {},
                                        .links = true},
        netscore::testing::ServeOptions{.route_prefix = {},
                                        .web_config = {},
                                        .probe = {},
                                        .rules = kMixinRules,
                                        .query_log = true});
  }
  return *g_rules_prometheus;
}

// One refresh path: its measurer and publisher, the whole refresh's time per round.
struct RefreshPath {
  RefreshPath(const netscore::Config& config, const std::string& table_name)
      : writer({.name = table_name, .capacity = config.shm.capacity}),
        client({config.prometheus}),
        measurer(config, client),
        publisher(netscore::collector::Publisher::options(config, client.redacted_url()), writer) {}

  // False when the refresh failed.
  bool refresh(std::int64_t eval_ms, std::size_t nodes) {
    const auto no_wait = [](std::chrono::milliseconds) { return true; };
    const auto start = std::chrono::steady_clock::now();
    const auto m = measurer.measure(eval_ms, no_wait);
    publisher.publish(m);
    refresh_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    side_queries += m.plan.asked_apart;
    return m.ok && m.nodes.samples.size() == nodes;
  }

  netscore::ScoreTableWriter writer;
  netscore::collector::PrometheusClient client;
  netscore::collector::Measurer measurer;
  netscore::collector::Publisher publisher;
  std::vector<double> refresh_ms{};
  std::uint64_t side_queries = 0;
};

// The default refresh, the one-query form it replaces and, on node-exporter's mixin rules, the
// rules' refresh, against the seed
// plugin's query batched over every node (one series per node), interleaved in rotating order on
// the Prometheus of g_rules_prometheus, which evaluates the mixin's rules every second. Figures are
// Prometheus' own evaluation times from its query log, medians over the rounds; ratios are the
// medians of each round's ratio. The first refresh of each path asks its side questions (layout,
// rules, speeds) and is not counted.
void BM_Collector_RefreshCost(benchmark::State& state) {
  namespace c = netscore::collector;
  constexpr unsigned kNodes = 5000;
  PrometheusProcess& prometheus = rules_prometheus();
  const auto config = [&](netscore::Environment env) {
    env.emplace("NETSCORE_PROMETHEUS_URL", prometheus.url());
    env.emplace("NETSCORE_INTERFACE", netscore::testing::kSynthInterface);
    env.emplace("NETSCORE_MAX_NODES", "8192");
    return netscore::load_config(netscore::Component::collector, {}, env);
  };
  const netscore::Config defaults = config({});
  const netscore::Config physical = config({{"NETSCORE_INTERFACE", "!lo|veth.+"}});
  const netscore::testing::ScratchTable default_table("bench-refresh-default");
  const netscore::testing::ScratchTable rules_table("bench-refresh-rules");
  RefreshPath default_path(defaults, default_table);
  RefreshPath rules_path(physical, rules_table);
  c::PrometheusClient seed_client({defaults.prometheus});
  // The one-query form before the query plan: the auto chain summed by node, both directions
  // and the speeds in one expression.
  constexpr std::string_view kOneQueryParts[] = {c::kKindScore, c::kKindTransmitRate, c::kKindSpeed,
                                                 c::kKindUnusableSpeed};
  const std::string one_query = c::build_tagged_parts_query(defaults.query, kOneQueryParts);
  const std::string seed = "sum_over_time(node_network_receive_bytes_total{device=\"" +
                           std::string(netscore::testing::kSynthInterface) + "\"}[5m])";
  const std::string rule_series =
      "count({__name__=~\"instance:node_network_(receive|transmit)_bytes_physical:rate5m\"})";
  const bool rules_evaluated = netscore::testing::eventually(
      [&] {
        const auto http = seed_client.query(rule_series, netscore::wall_now_ms());
        return http.ok() &&
               http.body.find("\"" + std::to_string(2 * kNodes) + "\"") != std::string::npos;
      },
      std::chrono::seconds(60));
  if (!rules_evaluated) {
    state.SkipWithError("Prometheus did not evaluate the mixin's rules");
    return;
  }
  const std::int64_t first_eval = netscore::wall_now_ms();
  if (!default_path.refresh(first_eval, kNodes) || !rules_path.refresh(first_eval, kNodes)) {
    state.SkipWithError("the first refresh failed");
    return;
  }
  const std::uint64_t first_side_queries = default_path.side_queries + rules_path.side_queries;
  if (rules_path.measurer.query().kind_label != "__name__") {
    state.SkipWithError("the rules' refresh does not read the recording rules");
    return;
  }
  default_path.refresh_ms.clear();
  rules_path.refresh_ms.clear();
  std::size_t round = 0;
  for (auto _ : state) {
    // The rules' samples exist at the present only: every round evaluates at the present.
    const std::int64_t eval = netscore::wall_now_ms();
    for (std::size_t i = 0; i < 4; ++i) {
      switch ((i + round) % 4) {
        case 0:
          if (!seed_client.query(seed, eval).ok()) state.SkipWithError("the seed query failed");
          break;
        case 1:
          if (!seed_client.query(one_query, eval).ok()) state.SkipWithError("one query failed");
          break;
        case 2:
          if (!default_path.refresh(eval, kNodes)) state.SkipWithError("a default refresh failed");
          break;
        default:
          if (!rules_path.refresh(eval, kNodes)) state.SkipWithError("a rules refresh failed");
      }
    }
    ++round;
  }
  const auto seed_ms = logged_eval_ms(prometheus.query_log(), seed);
  const auto one_query_ms = logged_eval_ms(prometheus.query_log(), one_query);
  // The first refresh of each path asked its batch too: the rounds' are the last ones.
  const auto refresh_eval_ms = [&](const c::BuiltQuery& query) {
    return both_directions(prometheus.query_log(), query.promql, query.transmit_promql, round);
  };
  const auto default_ms = refresh_eval_ms(default_path.measurer.query());
  const auto rules_ms = refresh_eval_ms(rules_path.measurer.query());
  if (seed_ms.size() != round || one_query_ms.size() != round || default_ms.size() != round ||
      rules_ms.size() != round) {
    state.SkipWithError("the query log does not hold every round's queries");
    return;
  }
  const auto ratio = [&](const std::vector<double>& numerator) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < round; ++r) ratios.push_back(numerator[r] / seed_ms[r]);
    return median(ratios);
  };
  state.counters["seed_ms"] = median(seed_ms);
  state.counters["one_query_ms"] = median(one_query_ms);
  state.counters["one_query/seed"] = ratio(one_query_ms);
  state.counters["default_ms"] = median(default_ms);
  state.counters["rules_ms"] = median(rules_ms);
  state.counters["default/seed"] = ratio(default_ms);
  state.counters["rules/seed"] = ratio(rules_ms);
  state.counters["default_refresh_ms"] = median(default_path.refresh_ms);
  state.counters["rules_refresh_ms"] = median(rules_path.refresh_ms);
  state.counters["first_side_queries"] = static_cast<double>(first_side_queries);
  state.counters["later_side_queries"] =
      static_cast<double>(default_path.side_queries + rules_path.side_queries - first_side_queries);
}

}  // namespace

BENCHMARK(BM_Collector_RefreshCost)->Iterations(15)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  spdlog::set_level(spdlog::level::err);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_rules_prometheus.reset();
  curl_global_cleanup();
  return 0;
}
