// The refresh on node-exporter's mixin rules, evaluated live by a real Prometheus, publishes the
// rates the refresh on the counters publishes for the same setting.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <string>

#include "collector/pipeline/measure.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/eventually.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace netscore::testing {
namespace {

constexpr unsigned kNodes = 20;

constexpr const char* kRules = R"(groups:
  - name: node-exporter.rules
    interval: 1s
    rules:
      - record: instance:node_network_receive_bytes_physical:rate5m
        expr: sum without (device) (rate(node_network_receive_bytes_total{job="node-exporter", device!~"lo|veth.+"}[5m]))
      - record: instance:node_network_transmit_bytes_physical:rate5m
        expr: sum without (device) (rate(node_network_transmit_bytes_total{job="node-exporter", device!~"lo|veth.+"}[5m]))
)";

Config physical_config(const std::string& url) {
  Config config =
      load_config(Component::collector, {},
                  {{"NETSCORE_PROMETHEUS_URL", url}, {"NETSCORE_INTERFACE", "!lo|veth.+"}});
  config.prometheus.retries = 0;
  return config;
}

std::map<std::string, model::NodeSample> by_node(const collector::Measurement& m) {
  std::map<std::string, model::NodeSample> out;
  for (const auto& s : m.nodes.samples) out[s.node] = s;
  return out;
}

TEST(RecordingRulesTest, TheRulesRefreshPublishesTheCountersRates) {
  const std::int64_t now_s = std::time(nullptr);
  PrometheusProcess prometheus(
      SynthOptions{.nodes = kNodes,
                   .end_s = now_s + 3600,
                   .hours = 1.2,
                   .step_s = 15,
                   .layout = SynthLayout::kube_prometheus,
                   .extra_metric = {},
                   .links = true},
      ServeOptions{.route_prefix = {}, .web_config = {}, .probe = {}, .rules = kRules});
  const Config config = physical_config(prometheus.url());
  collector::PrometheusClient client({config.prometheus});
  // Bounded wait for Prometheus' first evaluation of both rules.
  ASSERT_TRUE(eventually(
      [&] {
        const auto http = client.query(
            R"(count({__name__=~"instance:node_network_(receive|transmit)_bytes_physical:rate5m"}))",
            wall_now_ms());
        return http.ok() &&
               http.body.find("\"" + std::to_string(2 * kNodes) + "\"") != std::string::npos;
      },
      std::chrono::seconds(30)));
  collector::Measurer rules(config, client);
  const collector::Measurement from_rules = rules.measure(wall_now_ms(), no_wait());
  ASSERT_TRUE(from_rules.ok) << from_rules.error;
  EXPECT_EQ(rules.query().kind_label, "__name__") << from_rules.plan.path;
  EXPECT_NE(from_rules.plan.path.find("instance:node_network_receive_bytes_physical:rate5m"),
            std::string::npos);
  // The same devices read from the counters: with increase as the score no rule holds it, and the
  // rate parts come from the counters.
  Config counters_config = config;
  counters_config.query.function = QueryFunction::increase;
  collector::Measurer counters(counters_config, client);
  const collector::Measurement from_counters = counters.measure(wall_now_ms(), no_wait());
  ASSERT_TRUE(from_counters.ok) << from_counters.error;
  EXPECT_EQ(from_counters.plan.path.find("recording rules"), std::string::npos);
  const auto a = by_node(from_rules);
  const auto b = by_node(from_counters);
  ASSERT_EQ(a.size(), kNodes);
  ASSERT_EQ(b.size(), kNodes);
  const auto nodes = synth_nodes(kNodes);
  for (const auto& n : nodes) {
    SCOPED_TRACE(n.name);
    // Node 1's counter resets mid-window: its rate depends on the instant, and the rule's is
    // as of its last evaluation.
    if (n.counter_reset) continue;
    const auto& r = a.at(n.name);
    const auto& c = b.at(n.name);
    ASSERT_TRUE(r.rate_valid && c.rate_valid && r.transmit_rate_valid && c.transmit_rate_valid);
    EXPECT_NEAR(r.rate, c.rate, 1e-9 * std::max(1.0, c.rate));
    EXPECT_NEAR(r.transmit_rate, c.transmit_rate, 1e-9 * std::max(1.0, c.transmit_rate));
    EXPECT_EQ(r.speed, c.speed);
  }
}

}  // namespace
}  // namespace netscore::testing
