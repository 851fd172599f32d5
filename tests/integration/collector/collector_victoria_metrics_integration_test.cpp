// A second real engine: VictoriaMetrics. For every node, the table built from ONE batched query
// equals what VictoriaMetrics itself answers to the original per-node query, in label and uname
// modes, score and rate. Its semantics differ from Prometheus' (docs/prometheus.md), so the
// values are compared with its own answers, not with Prometheus'.
#include <cmath>
#include <ctime>
#include <memory>

#include <gtest/gtest.h>

#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/synth.h"
#include "tests/support/victoria_metrics_process.h"

namespace netscore::testing {
namespace {

constexpr unsigned kNodes = 12;

class CollectorVictoriaMetricsTest : public ::testing::TestWithParam<QueryMode> {
 protected:
  static void SetUpTestSuite() {
    now_s_ = std::time(nullptr);
    vm_ = std::make_unique<VictoriaMetricsProcess>(
        SynthOptions{.nodes = kNodes,
                     .end_s = now_s_ + 3600,
                     .hours = 2,
                     .step_s = 15,
                     .layout = SynthLayout::kubernetes_node,
                     .extra_metric = {}});
  }
  static void TearDownTestSuite() { vm_.reset(); }

  static std::int64_t eval_time_ms() { return (now_s_ + 150) * 1000 + 250; }

  static double per_node_value(collector::PrometheusClient& client, QueryConfig query,
                               const std::string& node) {
    query.node_label = "kubernetes_node";
    query.node_labels = {"kubernetes_node"};
    const auto http = client.query(collector::build_per_node_query(query, node), eval_time_ms());
    EXPECT_TRUE(http.ok()) << http.transport_error << " status=" << http.http_status << " "
                           << http.body;
    const auto parsed = collector::parse_vector_response(
        http.body, query.mode == QueryMode::uname ? "nodename" : "kubernetes_node");
    EXPECT_EQ(parsed.samples.size(), 1U) << "one series for " << node << ": " << http.body;
    return parsed.samples.empty() ? std::nan("") : parsed.samples.front().value;
  }

  static inline std::int64_t now_s_ = 0;
  static inline std::unique_ptr<VictoriaMetricsProcess> vm_;
};

TEST_P(CollectorVictoriaMetricsTest, TableEqualsVictoriaMetricsPerNodeAnswers) {
  // Single-node VictoriaMetrics also serves the API under /prometheus: a URL with a path prefix.
  const Config config = collector_config(vm_->url() + "/prometheus", GetParam());
  TableFixture table("collector-vm");
  collector::PrometheusClient client({config.prometheus});
  Refresh refresher(config, client, table.writer());
  const auto result = refresher.refresh(eval_time_ms(), no_wait());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.nodes.skipped, 0U);
  shm::SnapshotMeta meta{};
  const auto rows = table.rows(meta);
  ASSERT_EQ(rows.size(), kNodes);
  QueryConfig rate = config.query;
  rate.function = QueryFunction::rate;
  const auto nodes = synth_nodes(kNodes);
  for (std::size_t i = 0; i < kNodes; ++i) {
    SCOPED_TRACE(nodes[i].name);
    ASSERT_EQ(rows[i].name, nodes[i].name);
    EXPECT_EQ(rows[i].score.raw, per_node_value(client, config.query, nodes[i].name));
    EXPECT_TRUE(rows[i].score.valid());
    EXPECT_NE(rows[i].score.flags & shm::kEntryRateValid, 0U);
    EXPECT_EQ(rows[i].score.rate, per_node_value(client, rate, nodes[i].name));
  }
  // The data is the same as the Prometheus tests': the idle node is idle, load grows with the
  // index.
  EXPECT_EQ(rows[0].score.raw, 0.0);
  for (std::size_t i = 3; i < kNodes; ++i) EXPECT_LT(rows[i - 1].score.raw, rows[i].score.raw);
}

INSTANTIATE_TEST_SUITE_P(Modes, CollectorVictoriaMetricsTest,
                         ::testing::Values(QueryMode::label, QueryMode::uname),
                         [](const ::testing::TestParamInfo<QueryMode>& param_info) {
                           return param_info.param == QueryMode::label ? std::string("label")
                                                                       : std::string("uname");
                         });

}  // namespace
}  // namespace netscore::testing
