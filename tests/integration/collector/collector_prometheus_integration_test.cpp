// For every node, the value netscore publishes from ONE batched query equals what the original
// Go plugin's per-node query returns from the same real Prometheus at the same evaluation time.
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>

#include <gtest/gtest.h>

#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "common/model/scoring.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace netscore {
// Readable ctest names for the mode parameter.
inline void PrintTo(QueryMode mode, std::ostream* out) {
  *out << (mode == QueryMode::label ? "label" : "uname");
}
}  // namespace netscore

namespace netscore::testing {
namespace {

constexpr unsigned kNodes = 24;

class CollectorPrometheusTest : public ::testing::TestWithParam<QueryMode> {
 protected:
  static void SetUpTestSuite() {
    now_s_ = std::time(nullptr);
    prometheus_ = std::make_unique<PrometheusProcess>(
        SynthOptions{kNodes, now_s_ + 3600, 2, 15, SynthLayout::kubernetes_node, {}});
  }
  static void TearDownTestSuite() { prometheus_.reset(); }

  // Explicit, inside the data, and 150 s after the counter reset (the window's midpoint, now_s_):
  // the 5m range holds samples from both sides of the reset.
  static std::int64_t eval_time_ms() { return (now_s_ + 150) * 1000 + 250; }

  static double per_node_value(collector::PrometheusClient& client, const Config& config,
                               const std::string& node) {
    const auto http =
        client.query(collector::build_per_node_query(config.query, node), eval_time_ms());
    EXPECT_TRUE(http.ok()) << http.transport_error << " status=" << http.http_status;
    const auto parsed = collector::parse_vector_response(
        http.body, config.query.mode == QueryMode::uname ? "nodename" : config.query.node_label);
    EXPECT_TRUE(parsed.ok()) << parsed.error;
    EXPECT_EQ(parsed.samples.size(), 1U)
        << "the original query returns exactly one series for " << node;
    return parsed.samples.empty() ? std::nan("") : parsed.samples.front().value;
  }

  static inline std::int64_t now_s_ = 0;
  static inline std::unique_ptr<PrometheusProcess> prometheus_;
};

TEST_P(CollectorPrometheusTest, WithTheDefaultFunctionEveryNodeEqualsItsOwnRateQuery) {
  Config config = collector_config(prometheus_->url(), GetParam());
  config.query.function = load_config(Component::collector, {}, {}).query.function;
  ASSERT_EQ(config.query.function, QueryFunction::rate);
  TableFixture table("collector-default-rate");
  collector::PrometheusClient client({config.prometheus});
  Refresh refresher(config, client, table.writer());
  const auto result = refresher.refresh(eval_time_ms(), no_wait());
  ASSERT_TRUE(result.ok) << result.error;
  shm::SnapshotMeta meta{};
  const auto rows = table.rows(meta);
  const auto nodes = synth_nodes(kNodes);
  ASSERT_EQ(rows.size(), kNodes);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    SCOPED_TRACE(nodes[i].name);
    ASSERT_EQ(rows[i].name, nodes[i].name);
    const double expected = per_node_value(client, config, nodes[i].name);
    EXPECT_EQ(rows[i].score.raw, expected);
    EXPECT_EQ(rows[i].score.rate, expected);
    EXPECT_EQ(rows[i].score.raw_score, static_cast<std::int64_t>(expected));
  }
  // The idle node is idle by its rate too, and eth0's load grows with the node index.
  EXPECT_EQ(rows[0].score.raw, 0.0);
  for (std::size_t i = 3; i < nodes.size(); ++i)
    EXPECT_LT(rows[i - 1].score.raw, rows[i].score.raw);
}

TEST_P(CollectorPrometheusTest, EveryNodeEqualsTheOriginalPerNodeQuery) {
  const Config config = collector_config(prometheus_->url(), GetParam());
  TableFixture table("collector-equal");
  collector::PrometheusClient client({config.prometheus});
  Refresh refresher(config, client, table.writer());

  const auto result = refresher.refresh(eval_time_ms(), no_wait());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.nodes.series, kNodes);
  EXPECT_EQ(result.nodes.skipped, 0U);

  shm::SnapshotMeta meta{};
  const auto rows = table.rows(meta);
  EXPECT_EQ(meta.eval_time_ms, eval_time_ms());
  ASSERT_EQ(rows.size(), kNodes);
  const auto nodes = synth_nodes(kNodes);
  std::int64_t max_raw = 0;
  for (const auto& row : rows) max_raw = std::max(max_raw, row.score.raw_score);
  ASSERT_GT(max_raw, 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    SCOPED_TRACE(nodes[i].name);
    const auto& row = rows[i];  // published sorted by name, and synth names sort by index
    ASSERT_EQ(row.name, nodes[i].name);
    const double expected = per_node_value(client, config, nodes[i].name);
    EXPECT_EQ(row.score.raw, expected);
    EXPECT_TRUE(row.score.valid());
    EXPECT_EQ(row.score.raw_score, static_cast<std::int64_t>(expected));
    EXPECT_EQ(row.score.node_score,
              model::kMaxNodeScore - row.score.raw_score * model::kMaxNodeScore / max_raw);
    EXPECT_EQ(row.score.sample_ms, eval_time_ms());
    // The same answer carries the node's receive rate, equal to its own rate() query.
    Config rate_config = config;
    rate_config.query.function = QueryFunction::rate;
    EXPECT_NE(row.score.flags & shm::kEntryRateValid, 0U);
    EXPECT_EQ(row.score.rate, per_node_value(client, rate_config, nodes[i].name));
  }
  // The idle node scores best. The counter-reset node's post-reset samples are near zero, so its
  // sum is about half what its load alone gives (without the reset it would be 2/3 of node 2's).
  EXPECT_EQ(rows[0].score.raw, 0.0);
  EXPECT_EQ(rows[0].score.node_score, model::kMaxNodeScore);
  EXPECT_LT(rows[1].score.raw, rows[2].score.raw / 2);
  // Only eth0 counts: eth1 carries a different, constant load on every node.
  for (std::size_t i = 3; i < nodes.size(); ++i)
    EXPECT_LT(rows[i - 1].score.raw, rows[i].score.raw);

  const auto status = table.status();
  EXPECT_EQ(status.consecutive_failures, 0U);
  EXPECT_EQ(status.refreshes_total, 1U);
  EXPECT_EQ(status.series_count, kNodes);
  EXPECT_EQ(status.last_error[0], '\0');
}

TEST_P(CollectorPrometheusTest, OtherInterfaceGivesOtherValues) {
  Config config = collector_config(prometheus_->url(), GetParam());
  config.query.interface = kSynthOtherInterface;
  TableFixture table("collector-iface");
  collector::PrometheusClient client({config.prometheus});
  Refresh refresher(config, client, table.writer());
  ASSERT_TRUE(refresher.refresh(eval_time_ms(), no_wait()).ok);
  shm::SnapshotMeta meta{};
  const auto rows = table.rows(meta);
  ASSERT_EQ(rows.size(), kNodes);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.score.raw, rows[0].score.raw);
    EXPECT_EQ(row.score.raw, per_node_value(client, config, row.name));
  }
}

// The same Prometheus, other ways to ask: every variant must agree with the label-mode table.
class CollectorQueryVariantsTest : public CollectorPrometheusTest {
 protected:
  static std::vector<TableRow> refresh_rows(const Config& config, collector::Measurement& result) {
    TableFixture table("collector-variant");
    collector::PrometheusClient client({config.prometheus});
    Refresh refresher(config, client, table.writer());
    result = refresher.refresh(eval_time_ms(), no_wait());
    shm::SnapshotMeta meta{};
    return result.ok ? table.rows(meta) : std::vector<TableRow>{};
  }
};

TEST_F(CollectorQueryVariantsTest, RegexInterfaceAndCustomTemplateMatchLabelMode) {
  collector::Measurement result;
  const auto label_rows = refresh_rows(collector_config(prometheus_->url()), result);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(label_rows.size(), kNodes);

  Config regex = collector_config(prometheus_->url());
  regex.query.interface = "eth[0]";
  regex.query.interface_regex = true;
  Config custom = collector_config(prometheus_->url(), QueryMode::custom);
  custom.query.custom_template =
      "sum by ({node_label}) "
      "(sum_over_time(node_network_receive_bytes_total{device=\"{interface}\"}[{range}]))";
  for (const Config& variant : {regex, custom}) {
    const auto rows = refresh_rows(variant, result);
    ASSERT_TRUE(result.ok) << result.error;
    ASSERT_EQ(rows.size(), label_rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].name, label_rows[i].name);
      EXPECT_EQ(rows[i].score.raw, label_rows[i].score.raw);
    }
  }
}

TEST_F(CollectorQueryVariantsTest, RateFunctionScoresAndPublishesTheSameRate) {
  Config config = collector_config(prometheus_->url());
  config.query.function = QueryFunction::rate;
  collector::Measurement result;
  const auto rows = refresh_rows(config, result);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(rows.size(), kNodes);
  collector::PrometheusClient client({config.prometheus});
  const auto nodes = synth_nodes(kNodes);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].name);
    EXPECT_NE(rows[i].score.flags & shm::kEntryRateValid, 0U);
    EXPECT_EQ(rows[i].score.rate, rows[i].score.raw);
    EXPECT_EQ(rows[i].score.rate, per_node_value(client, config, rows[i].name));
  }
  // Away from the reset the synthetic counters grow at exactly the node's rate.
  EXPECT_DOUBLE_EQ(rows[5].score.rate, nodes[5].bytes_per_s);
}

TEST_F(CollectorQueryVariantsTest, ClientReusesItsConnection) {
  const Config config = collector_config(prometheus_->url());
  collector::PrometheusClient client({config.prometheus});
  const auto query = collector::build_batch_query(config.query).promql;
  const auto first = client.query(query, eval_time_ms());
  const auto second = client.query(query, eval_time_ms());
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first.new_connections, 1);
  EXPECT_EQ(second.new_connections, 0);
  EXPECT_EQ(first.body, second.body);
}

TEST_F(CollectorQueryVariantsTest, InjectedInterfaceStaysALiteralDeviceName) {
  // Unescaped, this would close the matcher and add `or vector(1)`: one series without a node
  // label, or a parse error. Escaped, Prometheus looks for a device with that odd name.
  Config config = collector_config(prometheus_->url());
  config.query.interface = "eth0\"} or vector(1) #\n";
  collector::Measurement result;
  refresh_rows(config, result);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "zero series in the answer");
}

INSTANTIATE_TEST_SUITE_P(Modes, CollectorPrometheusTest,
                         ::testing::Values(QueryMode::label, QueryMode::uname),
                         [](const ::testing::TestParamInfo<QueryMode>& param_info) {
                           return param_info.param == QueryMode::label ? std::string("label")
                                                                       : std::string("uname");
                         });

}  // namespace
}  // namespace netscore::testing
