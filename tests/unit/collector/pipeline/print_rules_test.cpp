// `--print-rules`: the text for a configuration, and the run against a fake Prometheus.
#include "collector/pipeline/print_rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tests/support/curl_environment.h"
#include "tests/support/fake_http_server.h"
#include "tests/unit/collector/pipeline/pipeline_test_config.h"

namespace netscore::collector {
namespace {

using testing::CannedResponse;
using testing::FakeHttpServer;
using testing::SeenRequest;

constexpr std::int64_t kPrintRulesEvalMs = 1'700'000'000'000;

// A rule of the group, as printed.
std::string rule(std::string_view record, std::string_view expr) {
  return "      - record: " + std::string(record) + "\n        expr: |-\n          " +
         std::string(expr) + "\n";
}

constexpr std::string_view kClamped = "clamp(node:netscore_link_load:ratio, 0, 1)";

std::string relative_of(std::string_view load) {
  const std::string l(load);
  return "clamp(" + l + " / on() group_left() (2 * avg(" + l + ") > 0), 0, 1) or (" + l +
         " * 0 + 0.5)";
}

// The expected text, written out: the rules, then the descheduler's args reading the relative
// series with the default thresholds.
std::string rules_text(const std::string& comment, const std::string& rules) {
  return comment +
         "# Prometheus rules (rule_files:, or a PrometheusRule's spec):\n"
         "groups:\n"
         "  - name: netscore-descheduler\n"
         "    rules:\n" +
         rules +
         "---\n"
         "# LowNodeUtilization's args in a DeschedulerPolicy (descheduler/v1alpha2), as the "
         "collector nominates (NETSCORE_REBALANCE_UTILISATION, _TARGET_POINTS, _LOW_POINTS; "
         "evictionLimits.node is how many it nominates on a node at most):\n"
         "useDeviationThresholds: true\n"
         "thresholds:\n"
         "  MetricResource: 0\n"
         "targetThresholds:\n"
         "  MetricResource: 22\n"
         "evictionLimits:\n"
         "  node: 2\n"
         "metricsUtilization:\n"
         "  source: Prometheus\n"
         "  prometheus:\n"
         "    query: node:netscore_link_utilisation:relative\n";
}

TEST(UtilisationRulesTextTest, RecordsTheUtilisationAndPointsTheDeschedulerAtIt) {
  QueryConfig config = pipeline_test_config("http://127.0.0.1:1", 0).query;
  config.basis = ScoreBasis::utilisation;
  config.direction = Direction::max;
  config.fallback_speed = 1.25e9;
  const std::string text = utilisation_rules_text(config, {}, {}, "node label kubernetes_node");
  QueryConfig receive = config;
  receive.direction = Direction::receive;
  QueryConfig transmit = config;
  transmit.direction = Direction::transmit;
  // The relative figure in the direction with the larger mean (receive on a tie or without any
  // transmit series), each direction recorded on the way.
  const std::string main_direction =
      "node:netscore_link_receive_load:ratio and on() (avg(node:netscore_link_receive_load:ratio) "
      ">= avg(node:netscore_link_transmit_load:ratio) or avg(node:netscore_link_receive_load:ratio) "
      "unless avg(node:netscore_link_transmit_load:ratio)) or "
      "node:netscore_link_transmit_load:ratio and on() (avg(node:netscore_link_transmit_load:ratio) "
      "> avg(node:netscore_link_receive_load:ratio) or avg(node:netscore_link_transmit_load:ratio) "
      "unless avg(node:netscore_link_receive_load:ratio))";
  EXPECT_EQ(
      text,
      rules_text(
          "# netscore's link utilisation per node: direction max, rates over 5m on "
          "device=\"eth0\", divided by the link speed (else 1250000000 B/s, "
          "NETSCORE_FALLBACK_LINK_SPEED); node label kubernetes_node.\n",
          rule("node:netscore_link_receive_load:ratio", build_link_load_query(receive)) +
              rule("node:netscore_link_transmit_load:ratio", build_link_load_query(transmit)) +
              rule("node:netscore_link_load:ratio", build_link_load_query(config)) +
              rule("node:netscore_link_utilisation:ratio", kClamped) +
              rule("node:netscore_link_load_main_direction:ratio", main_direction) +
              rule("node:netscore_link_utilisation:relative",
                   relative_of("node:netscore_link_load_main_direction:ratio"))));
}

TEST(UtilisationRulesTextTest, OneDirectionIsRecordedOnceAndTheRelativeFigureReadsItsLoad) {
  QueryConfig config = pipeline_test_config("http://127.0.0.1:1", 0).query;
  config.basis = ScoreBasis::utilisation;
  config.direction = Direction::transmit;
  const std::string text = utilisation_rules_text(config, {}, {}, "node label kubernetes_node");
  EXPECT_EQ(text, rules_text("# netscore's link utilisation per node: direction transmit, rates "
                             "over 5m on device=\"eth0\", divided by the link speed; node label "
                             "kubernetes_node.\n",
                             rule("node:netscore_link_load:ratio", build_link_load_query(config)) +
                                 rule("node:netscore_link_utilisation:ratio", kClamped) +
                                 rule("node:netscore_link_utilisation:relative",
                                      relative_of("node:netscore_link_load:ratio"))));
}

TEST(UtilisationRulesTextTest, TheRawBasisIsSaidToScoreSomethingElse) {
  const QueryConfig config = pipeline_test_config("http://127.0.0.1:1", 0).query;
  const std::string text = utilisation_rules_text(config, {}, {}, "node label kubernetes_node");
  EXPECT_NE(text.find("\n# NETSCORE_SCORE_BASIS=raw scores bytes: the descheduler then acts on a "
                      "figure netscore does not score by.\n# Prometheus rules"),
            std::string::npos)
      << text;
}

// deploy/monitoring ships the rule for kube-prometheus: what this prints for the pod template's
// settings there, the node label found being `instance`.
TEST(UtilisationRulesTextTest, TheShippedRuleIsTheOnePrintedForKubePrometheus) {
  const Config deployed = load_config(Component::collector, {},
                                      {{"NETSCORE_PROMETHEUS_URL", "http://127.0.0.1:1"},
                                       {"NETSCORE_NODE_LABEL", "auto"},
                                       {"NETSCORE_INTERFACE", "eth0"},
                                       {"NETSCORE_REBALANCE_WINDOW", "1m"}});
  std::ifstream file(std::string(NETSCORE_DEPLOY_DIR) +
                     "/monitoring/netscore-descheduler-rules.yaml");
  ASSERT_TRUE(file.good());
  std::string line;
  std::vector<std::pair<std::string, std::string>> rules;  // record, expr
  while (std::getline(file, line)) {
    if (line.starts_with("      - record: ")) rules.emplace_back(line.substr(16), "");
    std::string expr;
    if (line == "        expr: |-" && std::getline(file, expr) && !rules.empty())
      rules.back().second = expr.substr(10);
  }
  QueryConfig query = rebalance_query_config(deployed);
  ASSERT_EQ(query.direction, Direction::max);
  std::vector<std::string> loads;  // receive, transmit, max
  for (const Direction direction : {Direction::receive, Direction::transmit, Direction::max}) {
    query.direction = direction;
    loads.push_back(build_link_load_query(query, {.node_label = "instance"}));
  }
  ASSERT_EQ(rules.size(), 6U);
  EXPECT_EQ(rules[0].first, kReceiveLoadRecord);
  EXPECT_EQ(rules[0].second, loads[0]);
  EXPECT_EQ(rules[1].first, kTransmitLoadRecord);
  EXPECT_EQ(rules[1].second, loads[1]);
  EXPECT_EQ(rules[2].first, kLinkLoadRecord);
  EXPECT_EQ(rules[2].second, loads[2]);
  EXPECT_EQ(rules[3].first, kUtilisationRecord);
  EXPECT_EQ(rules[3].second, build_clamped_utilisation_query(kLinkLoadRecord));
  EXPECT_EQ(rules[4].first, kMainDirectionLoadRecord);
  EXPECT_EQ(rules[4].second,
            build_main_direction_load_query(kReceiveLoadRecord, kTransmitLoadRecord));
  EXPECT_EQ(rules[5].first, kRelativeUtilisationRecord);
  EXPECT_EQ(rules[5].second, build_relative_utilisation_query(kMainDirectionLoadRecord));
}

TEST(UtilisationRulesTextTest, AbsoluteThresholdsReadTheUtilisationItself) {
  const QueryConfig config = pipeline_test_config("http://127.0.0.1:1", 0).query;
  RebalanceConfig rebalance;
  rebalance.figure = RebalanceFigure::absolute;
  rebalance.target_points = 10;
  rebalance.low_points = 5;
  const std::string text =
      utilisation_rules_text(config, rebalance, {}, "node label kubernetes_node");
  EXPECT_TRUE(
      text.ends_with("useDeviationThresholds: true\n"
                     "thresholds:\n"
                     "  MetricResource: 5\n"
                     "targetThresholds:\n"
                     "  MetricResource: 10\n"
                     "evictionLimits:\n"
                     "  node: 2\n"
                     "metricsUtilization:\n"
                     "  source: Prometheus\n"
                     "  prometheus:\n"
                     "    query: node:netscore_link_utilisation:ratio\n"))
      << text;
}

constexpr const char* kTwoNodes =
    R"({"status":"success","data":{"resultType":"vector","result":[)"
    R"({"metric":{"kubernetes_node":"node-a"},"value":[1700000000,"10"]},)"
    R"({"metric":{"kubernetes_node":"node-b"},"value":[1700000000,"20"]}]}})";

class PrintRulesTest : public ::testing::Test {
 protected:
  PrintRulesTest() : config_(pipeline_test_config(server_.url(), 0)) {}

  // The refresh's query answers kTwoNodes, the utilisation query (the one with clamp)
  // `utilisation`.
  void answer_utilisation(std::string utilisation) {
    server_.respond_by([utilisation](const SeenRequest& request) {
      if (request.body.find("clamp") != std::string::npos) return CannedResponse{200, utilisation};
      return CannedResponse{200, kTwoNodes};
    });
  }
  std::string run(int& exit_status) {
    std::ostringstream out;
    exit_status = run_print_rules(config_, kPrintRulesEvalMs, out);
    return out.str();
  }
  std::string expected_rules() const {
    return rules_text(
        "# netscore's link utilisation per node: direction receive, rates over 1m on "
        "device=\"eth0\", divided by the link speed; node label kubernetes_node.\n"
        "# NETSCORE_SCORE_BASIS=raw scores bytes: the descheduler then acts on a figure netscore "
        "does not score by.\n",
        rule("node:netscore_link_load:ratio",
             build_link_load_query(rebalance_query_config(config_))) +
            rule("node:netscore_link_utilisation:ratio", kClamped) +
            rule("node:netscore_link_utilisation:relative",
                 relative_of("node:netscore_link_load:ratio")));
  }

  FakeHttpServer server_;
  Config config_;
};

TEST_F(PrintRulesTest, NamesTheMeasuredNodesTheUtilisationLeavesOut) {
  // A scrape address is no measured node: it covers none.
  answer_utilisation(R"({"status":"success","data":{"resultType":"vector","result":[)"
                     R"({"metric":{"instance":"10.0.0.9:9100"},"value":[1700000000,"0.5"]},)"
                     R"({"metric":{"instance":"node-a"},"value":[1700000000,"0.25"]}]}})");
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 0);
  EXPECT_EQ(out, expected_rules() +
                     "# 1 node measured by the refresh without a utilisation (no link speed): "
                     "node-b; the descheduler skips its cycle while a node it considers has no "
                     "series. NETSCORE_FALLBACK_LINK_SPEED gives them one (and scores them on "
                     "it).\n"
                     "# OK: 1 of the 2 nodes measured have a utilisation\n");
}

TEST_F(PrintRulesTest, AnEmptyUtilisationFails) {
  answer_utilisation(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  EXPECT_TRUE(out.ends_with("# FAIL: no node measured by the refresh has a utilisation\n")) << out;
}

// Asked through PrometheusApi: a failed request reads as every API failure does, an answer that
// does not decode says so.
TEST_F(PrintRulesTest, AFailedUtilisationQueryFailsNamingWhy) {
  server_.respond_by([](const SeenRequest& request) {
    if (request.body.find("clamp") != std::string::npos)
      return CannedResponse{503, R"({"status":"error","errorType":"unavailable","error":"busy"})"};
    return CannedResponse{200, kTwoNodes};
  });
  int exit_status = -1;
  std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  EXPECT_TRUE(out.starts_with(expected_rules() + "# FAIL: the utilisation query failed: http "
                                                 "status 503"))
      << out;
  EXPECT_NE(out.find("busy"), std::string::npos) << out;

  answer_utilisation("not json");
  out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  EXPECT_TRUE(out.starts_with(expected_rules() + "# FAIL: the utilisation query's answer: "))
      << out;
}

TEST_F(PrintRulesTest, WithoutPrometheusTheConfigurationsRulesArePrintedAndItFails) {
  server_.respond_with({500, "overloaded"});
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  EXPECT_TRUE(out.starts_with(expected_rules() + "# FAIL: the refresh's query failed")) << out;
}

}  // namespace
}  // namespace netscore::collector
