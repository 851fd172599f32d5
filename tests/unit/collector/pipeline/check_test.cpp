// `--check`'s report: against a fake Prometheus, and printed from a measurement made by hand.
#include "collector/pipeline/check.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <sstream>
#include <memory>
#include <string>

#include "collector/pipeline/query_plan.h"
#include "collector/pipeline/recent_pod_traffic.h"
#include "tests/support/curl_environment.h"
#include "tests/unit/common/model/model_fixtures.h"
#include "tests/unit/collector/pipeline/pipeline_test_config.h"
#include "tests/support/fake_http_server.h"

namespace netscore::collector {
namespace {

using testing::FakeHttpServer;

constexpr std::int64_t kEvalMs = 1'700'000'000'000;

std::string right(const std::string& text, std::size_t width) {
  return std::string(width - text.size(), ' ') + text;
}

// One line of the node table: name left-aligned in 40, value right-aligned in 24, the rates in
// 16, the speed in 14.
std::string row(const std::string& node, const std::string& value, const std::string& receive,
                const std::string& transmit = "-", const std::string& speed = "-") {
  return node + std::string(40 - node.size(), ' ') + " " + right(value, 24) + " " +
         right(receive, 16) + " " + right(transmit, 16) + " " + right(speed, 14) + "\n";
}

std::string header_row() {
  return row("node", "value", "receive (B/s)", "transmit (B/s)", "speed (B/s)");
}

constexpr const char* kRawReceiveWithoutSpeeds =
    "scoring: basis raw, direction receive\n"
    "link speeds: 0 nodes with a measured speed\n";

class CheckTest : public ::testing::Test {
 protected:
  CheckTest() : config_(pipeline_test_config(server_.url(), 3)) {}

  std::string run(int& exit_status) {
    std::ostringstream out;
    exit_status = run_check(config_, kEvalMs, out);
    return out.str();
  }
  std::string header() const {
    // The URL as the client logs it: normalised with a trailing slash. The seed's configuration
    // (one label, one device) has nothing to ask apart: its plan is settled from the start.
    const QueryPlan plan(config_.query, config_.recheck_interval.value);
    return "prometheus: " + server_.url() + "/\nquery: " + plan.batch().promql +
           "\npath: " + plan.describe() + "\n";
  }

  FakeHttpServer server_;
  Config config_;
};

TEST_F(CheckTest, ListsTheNodesWithValueAndRate) {
  server_.respond_with(
      {200,
       R"({"status":"success","data":{"resultType":"vector","result":[)"
       R"({"metric":{"kubernetes_node":"node-b"},"value":[1700000000,"1234.5"]},)"
       R"({"metric":{"kubernetes_node":"node-b","netscore_kind":"rate"},"value":[1700000000,"4.25"]},)"
       R"({"metric":{"kubernetes_node":"node-a"},"value":[1700000000,"10"]}]}})",
       {}});
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 0);
  EXPECT_EQ(out, header() +
                     "series: 2  nodes: 2  skipped: no node label 0, duplicate 0, not a number 0, "
                     "not a node name 0\n" +
                     header_row() + row("node-b", "1234.5", "4.25") + row("node-a", "10", "-") +
                     kRawReceiveWithoutSpeeds +
                     "without a link speed: 0 nodes with a non-positive speed (virtual devices), "
                     "2 nodes without a speed series: the raw basis uses no link speed\n"
                     "OK: 2 nodes would be scored\n");
  EXPECT_EQ(server_.requests(), 1U) << "a complete answer needs no diagnosis";
}

TEST_F(CheckTest, AFailedQueryIsAskedOnceAndNamed) {
  server_.respond_with({500, "oops", {}});
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  EXPECT_EQ(out, header() + "FAIL: the query failed: http status 500\n");
  EXPECT_EQ(server_.requests(), 1U) << "no retries: the operator is waiting";
}

TEST_F(CheckTest, AMalformedAnswerFailsWithTheParserError) {
  server_.respond_with(
      {200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})", {}});
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  ASSERT_TRUE(out.starts_with(header() + "FAIL: ")) << out;
  EXPECT_EQ(out.find("the query failed"), std::string::npos) << out;
  EXPECT_EQ(out.find("diagnosis"), std::string::npos) << out;
}

TEST_F(CheckTest, NoNodeFailsWithADiagnosis) {
  server_.respond_with(
      {200, R"({"status":"success","data":{"resultType":"vector","result":[]}})", {}});
  int exit_status = -1;
  const std::string out = run(exit_status);
  EXPECT_EQ(exit_status, 1);
  EXPECT_NE(out.find("series: 0  nodes: 0"), std::string::npos) << out;
  EXPECT_NE(
      out.find("\ndiagnosis:\n  - Prometheus has no series of node_network_receive_bytes_total"),
      std::string::npos)
      << out;
  EXPECT_TRUE(out.ends_with("FAIL: no node would be scored\n")) << out;
}

TEST(PrintCheck, PrintsRejectedNamesFindingsAndSettingsFromTheMeasurement) {
  Measurement m{.ok = true,
                .nodes = {.queried = true,
                          .answered = true,
                          .samples = {{.node = "n1", .value = 5}},
                          .series = 3,
                          .skipped = 2,
                          .missing_label = 1,
                          .rejected = {.rejected = 1, .example = "10.0.0.2:9100"},
                          .rejected_names = "1 series name their node \"10.0.0.2:9100\"",
                          .warnings = {"partial data"}}};
  m.diagnosis.findings.emplace();
  m.diagnosis.findings->findings = {"First finding.", "Second finding."};
  m.diagnosis.findings->settings = {"NETSCORE_NODE_LABEL=node"};
  std::ostringstream out;
  EXPECT_EQ(print_check(m, {}, out), 0);
  EXPECT_EQ(out.str(),
            "prometheus warning: partial data\n"
            "series: 3  nodes: 1  skipped: no node label 1, duplicate 0, not a number 0, "
            "not a node name 1\n" +
                header_row() + row("n1", "5", "-") + kRawReceiveWithoutSpeeds +
                "without a link speed: 0 nodes with a non-positive speed (virtual devices), "
                "1 node without a speed series: the raw basis uses no link speed\n"
                "1 series name their node \"10.0.0.2:9100\"\n"
                "\ndiagnosis:\n  - First finding.\n  - Second finding.\n"
                "\nsettings to use:\n  NETSCORE_NODE_LABEL=node\n"
                "OK (partly): 1 nodes would be scored\n");
}

// Three nodes with a link speed (two at 1 Gb/s, one at 10 Gb/s), one whose device reports -1,
// one without a speed series.
Measurement links_measurement() {
  return {
      .ok = true,
      .nodes = {.queried = true,
                .answered = true,
                .samples =
                    {model::linked("a", 12.5e6, 25e6, 125e6),
                     model::linked("b", 125e6, 0, 1250e6),
                     model::linked("c", 62.5e6, 1e6, 125e6),
                     {.node = "d", .value = 5, .rate = 5, .rate_valid = true, .unusable_speeds = 1},
                     {.node = "e", .value = 7, .rate = 7, .rate_valid = true}},
                .series = 5}};
}

std::string links_table() {
  return "series: 5  nodes: 5  skipped: no node label 0, duplicate 0, not a number 0, "
         "not a node name 0\n" +
         header_row() + row("a", "12500000", "1.25e+07", "2.5e+07", "125000000") +
         row("b", "125000000", "1.25e+08", "0", "1250000000") +
         row("c", "62500000", "6.25e+07", "1e+06", "125000000") +
         row("d", "5", "5", "-", "not positive") + row("e", "7", "7", "-", "-");
}

constexpr const char* kLinkSpeeds =
    "link speeds: 3 nodes with a measured speed: 2 at 1 Gb/s (125000000 B/s), 1 at 10 Gb/s "
    "(1250000000 B/s)\n";

// One line of the busiest links: name left-aligned in 40, utilisation right-aligned in 10.
std::string busiest(const std::string& node, const std::string& utilisation,
                    const std::string& detail) {
  return "  " + node + std::string(40 - node.size(), ' ') + " " + right(utilisation, 10) + "  " +
         detail + "\n";
}

TEST(PrintCheck, UtilisationListsTheSpeedsAndTheBusiestLinks) {
  std::ostringstream out;
  EXPECT_EQ(print_check(links_measurement(),
                        {.basis = ScoreBasis::utilisation, .direction = Direction::max}, out),
            0);
  EXPECT_EQ(out.str(),
            links_table() + "scoring: basis utilisation, direction max\n" + kLinkSpeeds +
                "without a link speed: 1 node with a non-positive speed (virtual devices), 1 node "
                "without a speed series: scored on the raw basis, compared only among themselves "
                "(NETSCORE_FALLBACK_LINK_SPEED would score them at that speed)\n"
                "busiest links (3 of 3 nodes):\n" +
                busiest("c", "50%", "receive 50%, transmit 0.8% of 1 Gb/s (125000000 B/s)") +
                busiest("a", "20%", "receive 10%, transmit 20% of 1 Gb/s (125000000 B/s)") +
                busiest("b", "10%", "receive 10%, transmit 0% of 10 Gb/s (1250000000 B/s)") +
                "OK: 5 nodes would be scored\n");
}

TEST(PrintCheck, TheFallbackSpeedScoresTheNodesWithoutOne) {
  Measurement m = links_measurement();
  m.nodes.samples[3].rate = 62.5e6 * 1.5;  // d: 75% of the fallback's 1 Gb/s, the busiest of all
  std::ostringstream out;
  EXPECT_EQ(print_check(m,
                        {.basis = ScoreBasis::utilisation,
                         .direction = Direction::receive,
                         .fallback_speed = 125e6},
                        out),
            0);
  const std::string text = out.str();
  EXPECT_NE(
      text.find(
          "scoring: basis utilisation, direction receive\n" + std::string(kLinkSpeeds) +
          "without a link speed: 1 node with a non-positive speed (virtual devices), 1 node "
          "without a speed series: scored at the fallback speed 1 Gb/s (125000000 B/s) "
          "(NETSCORE_FALLBACK_LINK_SPEED)\n"
          "busiest links (5 of 5 nodes):\n" +
          busiest("d", "75%", "receive 75%, transmit - of 1 Gb/s (125000000 B/s) (fallback)") +
          busiest("c", "50%", "receive 50%, transmit 0.8% of 1 Gb/s (125000000 B/s)")),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(busiest("e", "5.6e-06%",
                              "receive 5.6e-06%, transmit - of 1 Gb/s (125000000 B/s) (fallback)")),
            std::string::npos)
      << text;
}

TEST(PrintCheck, TheRawBasisReportsTheSpeedsItDoesNotUse) {
  std::ostringstream out;
  EXPECT_EQ(print_check(links_measurement(), {.direction = Direction::transmit}, out), 0);
  EXPECT_EQ(out.str(), links_table() + "scoring: basis raw, direction transmit\n" + kLinkSpeeds +
                           "without a link speed: 1 node with a non-positive speed (virtual "
                           "devices), 1 node without a speed series: the raw basis uses no link "
                           "speed\n"
                           "OK: 5 nodes would be scored\n");
}

TEST(PrintCheck, EveryNodeWithASpeedLeavesNothingWithout) {
  Measurement m = links_measurement();
  m.nodes.samples.resize(3);
  std::ostringstream out;
  EXPECT_EQ(print_check(m, {.basis = ScoreBasis::utilisation}, out), 0);
  const std::string text = out.str();
  EXPECT_NE(text.find(kLinkSpeeds + std::string("busiest links (3 of 3 nodes):\n  c")),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("without a link speed"), std::string::npos) << text;
}

TEST(PodTrafficCheckTest, SaysWhetherPerPodSeriesAreInUseTheQueriesAndTheirAge) {
  Measurement m{.eval_time_ms = kEvalMs};
  std::ostringstream off;
  print_pod_traffic(m, off);
  EXPECT_EQ(off.str(), "");
  auto traffic = std::make_shared<PodTraffic>(PodTraffic{.checked = true,
                                                         .in_use = true,
                                                         .eval_time_ms = kEvalMs - 30'000,
                                                         .receive_query = "rx",
                                                         .transmit_query = "tx",
                                                         .detection_query = "count"});
  traffic->pods["shop/web-1"] = {};
  m.pod_traffic.every_pod = traffic;
  m.pod_traffic.interval_ms = 60'000;
  m.pod_traffic.costs = {.node_ms = 40, .full_ms = 90, .recent_ms = 3};
  std::ostringstream in_use;
  print_pod_traffic(m, in_use);
  EXPECT_EQ(in_use.str(),
            "pod traffic: per-pod series in use, 1 pod read 30000 ms before this evaluation; "
            "every pod read every 60000 ms (it took 90 ms, the refresh's query 40 ms)\n"
            "  receive: rx\n  transmit: tx\n"
            "recent pods: not read without watched pods (the collector reads those placed since "
            "the read of every pod at every refresh)\n");
  auto recent = std::make_shared<RecentPodTraffic>(RecentPodTraffic{.eval_time_ms = kEvalMs,
                                                                    .range_ms = 60'000,
                                                                    .asked = 2,
                                                                    .answered = 1,
                                                                    .left_out = 3,
                                                                    .receive_query = "recent rx",
                                                                    .error = "recent read: 503"});
  recent->pods["shop/web-9"] = {};
  m.pod_traffic.recent = recent;
  std::ostringstream with_recent;
  print_pod_traffic(m, with_recent);
  EXPECT_NE(
      with_recent.str().find("recent pods (placed since the read of every pod, which does "
                             "not price them): 2 asked, 1 answered, 3 left out beyond 256, "
                             "1 kept; slope over 60000 ms; took 3 ms; the last read failed: recent "
                             "read: 503\n  receive: recent rx\n"),
      std::string::npos)
      << with_recent.str();
  m.pod_traffic.recent.reset();
  traffic->in_use = false;
  traffic->pods.clear();
  std::ostringstream absent;
  print_pod_traffic(m, absent);
  EXPECT_EQ(absent.str(),
            "pod traffic: no per-pod series with namespace and pod labels (count answered none): "
            "the container runtime fills no pod labels, or kubelet's /metrics/cadvisor is not "
            "scraped\n");
}

}  // namespace
}  // namespace netscore::collector
