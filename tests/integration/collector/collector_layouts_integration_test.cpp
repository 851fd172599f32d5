// The Prometheus layouts people run, each a real Prometheus with backfilled data: kube-prometheus
// (instance = node name, served under a route prefix), a layout where no label names the node,
// a recording-rule metric, extra headers through a recording reverse proxy, the --check doctor
// and --print-rules.
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "collector/pipeline/check.h"
#include "collector/prometheus/query_builder.h"
#include "collector/prometheus/response_parser.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/binary_process.h"
#include "tests/support/fake_http_server.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace netscore::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr unsigned kNodes = 12;
constexpr const char* kRuleMetric = "instance:node_network_receive_bytes:counter";

class CollectorLayoutsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    now_s_ = std::time(nullptr);
    kube_prometheus_ = std::make_unique<PrometheusProcess>(
        SynthOptions{.nodes = kNodes,
                     .end_s = now_s_ + 3600,
                     .hours = 2,
                     .step_s = 15,
                     .layout = SynthLayout::kube_prometheus,
                     .extra_metric = kRuleMetric},
        ServeOptions{.route_prefix = "/prom", .web_config = {}, .probe = {}});
    neither_ = std::make_unique<PrometheusProcess>(SynthOptions{.nodes = kNodes,
                                                                .end_s = now_s_ + 3600,
                                                                .hours = 2,
                                                                .step_s = 15,
                                                                .layout = SynthLayout::neither,
                                                                .extra_metric = {}});
  }
  static void TearDownTestSuite() {
    kube_prometheus_.reset();
    neither_.reset();
  }

  static std::int64_t eval_time_ms() { return (now_s_ + 150) * 1000 + 250; }

  // Only what a new user sets: the URL and, unless told otherwise, the interface.
  static Config user_config(const std::string& url, const char* interface = "eth0") {
    Environment env{{"NETSCORE_PROMETHEUS_URL", url}};
    if (interface != nullptr) env.emplace("NETSCORE_INTERFACE", interface);
    return load_config(Component::collector, {}, env);
  }

  static double per_node_value(collector::PrometheusClient& client, QueryConfig query,
                               const std::string& label, const std::string& node) {
    query.node_label = label;
    query.node_labels = {label};
    const auto http = client.query(collector::build_per_node_query(query, node), eval_time_ms());
    EXPECT_TRUE(http.ok()) << http.transport_error << " status=" << http.http_status;
    const auto parsed = collector::parse_vector_response(http.body, label);
    EXPECT_EQ(parsed.samples.size(), 1U) << "one series for " << node;
    return parsed.samples.empty() ? std::nan("") : parsed.samples.front().value;
  }

  static std::vector<TableRow> refresh_rows(const Config& config, collector::Measurement& result,
                                            shm::CollectorStatus* status = nullptr) {
    TableFixture table("collector-layout");
    collector::PrometheusClient client({config.prometheus});
    Refresh refresher(config, client, table.writer());
    result = refresher.refresh(eval_time_ms(), no_wait());
    if (status != nullptr) *status = table.status();
    shm::SnapshotMeta meta{};
    return result.ok ? table.rows(meta) : std::vector<TableRow>{};
  }

  static std::string check_output(const Config& config, int& exit_status) {
    std::ostringstream out;
    exit_status = collector::run_check(config, eval_time_ms(), out);
    return out.str();
  }

  static inline std::int64_t now_s_ = 0;
  static inline std::unique_ptr<PrometheusProcess> kube_prometheus_;
  static inline std::unique_ptr<PrometheusProcess> neither_;
};

TEST_F(CollectorLayoutsTest, KubePrometheusLayoutNeedsOnlyTheUrlAndTheInterface) {
  const Config config = user_config(kube_prometheus_->url());
  collector::Measurement result;
  shm::CollectorStatus status{};
  const auto rows = refresh_rows(config, result, &status);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(rows.size(), kNodes);
  EXPECT_EQ(result.nodes.skipped, 0U);
  EXPECT_EQ(status.diagnosis[0], '\0');
  collector::PrometheusClient client({config.prometheus});
  QueryConfig rate = config.query;
  rate.function = QueryFunction::rate;
  const auto nodes = synth_nodes(kNodes);
  for (std::size_t i = 0; i < kNodes; ++i) {
    SCOPED_TRACE(nodes[i].name);
    ASSERT_EQ(rows[i].name, nodes[i].name);
    // What a user of this layout would ask for one node: the series whose instance is the node.
    EXPECT_EQ(rows[i].score.raw, per_node_value(client, config.query, "instance", nodes[i].name));
    EXPECT_TRUE(rows[i].score.valid());
    EXPECT_NE(rows[i].score.flags & shm::kEntryRateValid, 0U);
    EXPECT_EQ(rows[i].score.rate, per_node_value(client, rate, "instance", nodes[i].name));
  }
  EXPECT_GT(rows[5].score.raw, rows[4].score.raw);
}

TEST_F(CollectorLayoutsTest, RecordingRuleMetricNameWorks) {
  collector::Measurement result;
  const auto plain = refresh_rows(user_config(kube_prometheus_->url()), result);
  ASSERT_TRUE(result.ok) << result.error;
  const Config rule = load_config(Component::collector, {},
                                  {{"NETSCORE_PROMETHEUS_URL", kube_prometheus_->url()},
                                   {"NETSCORE_INTERFACE", "eth0"},
                                   {"NETSCORE_RECEIVE_METRIC", kRuleMetric}});
  const auto rows = refresh_rows(rule, result);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(rows.size(), plain.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].name, plain[i].name);
    EXPECT_EQ(rows[i].score.raw, plain[i].score.raw);
    EXPECT_EQ(rows[i].score.rate, plain[i].score.rate);
  }
}

TEST_F(CollectorLayoutsTest, HeadersAndTokenReachTheServerThroughTheRoutePrefix) {
  const std::string dir = ::testing::TempDir();
  const std::string headers_file = dir + "netscore-layout-headers-" + std::to_string(getpid());
  const std::string token_file = dir + "netscore-layout-token-" + std::to_string(getpid());
  std::ofstream(headers_file) << "# from a secret\nX-Api-Key: key-from-file\n";
  std::ofstream(token_file) << "token-123\n";
  FakeHttpServer proxy;
  proxy.forward_to("http://127.0.0.1:" + std::to_string(kube_prometheus_->port()));
  const Config config = load_config(Component::collector, {},
                                    {{"NETSCORE_PROMETHEUS_URL", proxy.url() + "/prom/"},
                                     {"NETSCORE_INTERFACE", "eth0"},
                                     {"NETSCORE_PROMETHEUS_HEADERS", "X-Scope-OrgID=tenant1"},
                                     {"NETSCORE_PROMETHEUS_HEADERS_FILE", headers_file},
                                     {"NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE", token_file}});
  collector::Measurement result;
  const auto rows = refresh_rows(config, result);
  std::remove(headers_file.c_str());
  std::remove(token_file.c_str());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(rows.size(), kNodes);
  const SeenRequest seen = proxy.last_request();
  EXPECT_EQ(seen.target, "/prom/api/v1/query");
  EXPECT_EQ(seen.headers.at("x-scope-orgid"), "tenant1");
  EXPECT_EQ(seen.headers.at("x-api-key"), "key-from-file");
  EXPECT_EQ(seen.headers.at("authorization"), "Bearer token-123");
}

TEST_F(CollectorLayoutsTest, CheckListsTheNodesWhenTheLayoutWorks) {
  int status = -1;
  const std::string out = check_output(user_config(kube_prometheus_->url()), status);
  EXPECT_EQ(status, 0) << out;
  for (const auto& node : synth_nodes(kNodes)) EXPECT_THAT(out, HasSubstr(node.name));
  EXPECT_THAT(out, HasSubstr("OK: 12 nodes"));
  EXPECT_THAT(out, Not(HasSubstr("diagnosis")));
}

TEST_F(CollectorLayoutsTest, CheckWithOnlyTheUrlNamesTheInterfaceAndTheLabel) {
  int status = -1;
  const std::string out = check_output(user_config(kube_prometheus_->url(), nullptr), status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_THAT(out, HasSubstr("device=\"ens192\""));
  EXPECT_THAT(out, HasSubstr("its devices are eth0, eth1"));
  EXPECT_THAT(out, HasSubstr("NETSCORE_INTERFACE=eth0\n"));
  EXPECT_THAT(out, HasSubstr("NETSCORE_NODE_LABEL=instance\n"));
  EXPECT_THAT(out, HasSubstr("FAIL: no node would be scored"));
}

// As an operator runs it: the binary, only the URL in its environment.
TEST_F(CollectorLayoutsTest, CheckBinaryWithOnlyTheUrlExitsOneNamingInstanceAndEth0) {
  BinaryProcess check({NETSCORE_COLLECTOR_BINARY,
                       {"NETSCORE_PROMETHEUS_URL=" + kube_prometheus_->url()},
                       {},
                       {},
                       {"--check"}});
  EXPECT_EQ(check.wait_exit(std::chrono::seconds(30)), 1) << check.log();
  EXPECT_THAT(check.log(), HasSubstr("NETSCORE_INTERFACE=eth0\n"));
  EXPECT_THAT(check.log(), HasSubstr("NETSCORE_NODE_LABEL=instance\n"));
}

// --print-rules as an operator runs it on kube-prometheus: the node label found is instance, the
// rule reads it, and every node has a utilisation (these nodes report no link speed: the fallback
// gives them one).
TEST_F(CollectorLayoutsTest, PrintRulesBinaryRecordsTheUtilisationOnTheLayoutFound) {
  Config config = user_config(kube_prometheus_->url());
  config.query.fallback_speed = 125e6;
  BinaryProcess print({NETSCORE_COLLECTOR_BINARY,
                       {"NETSCORE_PROMETHEUS_URL=" + kube_prometheus_->url(),
                        "NETSCORE_INTERFACE=eth0", "NETSCORE_FALLBACK_LINK_SPEED=125M"},
                       {},
                       {},
                       {"--print-rules"}});
  EXPECT_EQ(print.wait_exit(std::chrono::seconds(30)), 0) << print.log();
  EXPECT_THAT(print.log(),
              HasSubstr("node label instance (the one NETSCORE_NODE_LABEL candidate the series "
                        "carry).\n"));
  EXPECT_THAT(print.log(),
              HasSubstr("        expr: |-\n          " +
                        collector::build_link_load_query(collector::rebalance_query_config(config),
                                                         {.node_label = "instance"}) +
                        "\n"));
  EXPECT_THAT(print.log(), HasSubstr("# OK: 12 of the 12 nodes measured have a utilisation"));
}

TEST_F(CollectorLayoutsTest, ScrapeAddressesAreReportedNotScoredAndDiagnosed) {
  const Config config = user_config(neither_->url());
  collector::Measurement result;
  shm::CollectorStatus status{};
  refresh_rows(config, result, &status);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "no usable series in the answer");
  EXPECT_EQ(result.nodes.skipped, kNodes);
  const std::string diagnosis = status.diagnosis;
  EXPECT_THAT(diagnosis, ::testing::StartsWith("Try: NETSCORE_QUERY_MODE=uname."));
  EXPECT_THAT(
      diagnosis,
      HasSubstr("\"10.0.0.0:9100\" (label first of kubernetes_node,node,nodename,instance)"));

  int exit_status = -1;
  const std::string out = check_output(config, exit_status);
  EXPECT_EQ(exit_status, 1) << out;
  EXPECT_THAT(out, HasSubstr("not a node name 12"));
  EXPECT_THAT(
      out,
      HasSubstr("Label instance holds values like \"10.0.0.0:9100\", which are not node names."));
  EXPECT_THAT(out, HasSubstr("node_uname_info{nodename} joins on instance"));
  EXPECT_THAT(out, HasSubstr("settings to use:\n  NETSCORE_QUERY_MODE=uname\n"));

  // The suggested setting works, with values exact.
  Config uname = config;
  uname.query.mode = QueryMode::uname;
  const auto rows = refresh_rows(uname, result);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(rows.size(), kNodes);
  collector::PrometheusClient client({uname.prometheus});
  for (const auto& row : rows) {
    const auto http =
        client.query(collector::build_per_node_query(uname.query, row.name), eval_time_ms());
    const auto parsed = collector::parse_vector_response(http.body, "nodename");
    ASSERT_EQ(parsed.samples.size(), 1U);
    EXPECT_EQ(row.score.raw, parsed.samples[0].value) << row.name;
  }
}

TEST_F(CollectorLayoutsTest, CheckNamesAMissingMetric) {
  Config config = user_config(kube_prometheus_->url());
  config.query.metric = "node_network_receive_bytes_totl";
  int status = -1;
  const std::string out = check_output(config, status);
  EXPECT_EQ(status, 1);
  EXPECT_THAT(out, HasSubstr("Prometheus has no series of node_network_receive_bytes_totl at all"));
}

}  // namespace
}  // namespace netscore::testing
