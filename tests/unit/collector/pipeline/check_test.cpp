// `--check`'s report: against a fake Prometheus, and printed from a measurement made by hand.
#include "collector/pipeline/check.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "collector/prometheus/query_builder.h"
#include "tests/support/curl_environment.h"
#include "tests/unit/collector/pipeline/pipeline_test_config.h"
#include "tests/support/fake_http_server.h"

namespace netscore::collector {
namespace {

using testing::FakeHttpServer;

constexpr std::int64_t kEvalMs = 1'700'000'000'000;

// One line of the node table: name left-aligned in 40, value right-aligned in 24, rate in 18.
std::string row(const std::string& node, const std::string& value, const std::string& rate) {
  return node + std::string(40 - node.size(), ' ') + " " + std::string(24 - value.size(), ' ') +
         value + " " + std::string(18 - rate.size(), ' ') + rate + "\n";
}

class CheckTest : public ::testing::Test {
 protected:
  CheckTest() : config_(pipeline_test_config(server_.url(), "3")) {}

  std::string run(int& exit_status) {
    std::ostringstream out;
    exit_status = run_check(config_, kEvalMs, out);
    return out.str();
  }
  std::string header() const {
    // The URL as the client logs it: normalised with a trailing slash.
    return "prometheus: " + server_.url() + "/\nquery: " + build_batch_query(config_.query).promql +
           "\n";
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
                     row("node", "value", "rate (bytes/s)") + row("node-b", "1234.5", "4.25") +
                     row("node-a", "10", "-") + "OK: 2 nodes would be scored\n");
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
                .queried = true,
                .answered = true,
                .samples = {{.node = "n1", .value = 5}},
                .series = 3,
                .skipped = 2,
                .missing_label = 1,
                .rejected = {.rejected = 1, .example = "10.0.0.2:9100"},
                .rejected_names = "1 series name their node \"10.0.0.2:9100\"",
                .warnings = {"partial data"}};
  m.diagnosis.emplace();
  m.diagnosis->findings = {"First finding.", "Second finding."};
  m.diagnosis->settings = {"NETSCORE_NODE_LABEL=node"};
  std::ostringstream out;
  EXPECT_EQ(print_check(m, out), 0);
  EXPECT_EQ(out.str(),
            "prometheus warning: partial data\n"
            "series: 3  nodes: 1  skipped: no node label 1, duplicate 0, not a number 0, "
            "not a node name 1\n" +
                row("node", "value", "rate (bytes/s)") + row("n1", "5", "-") +
                "1 series name their node \"10.0.0.2:9100\"\n"
                "\ndiagnosis:\n  - First finding.\n  - Second finding.\n"
                "\nsettings to use:\n  NETSCORE_NODE_LABEL=node\n"
                "OK (partly): 1 nodes would be scored\n");
}

}  // namespace
}  // namespace netscore::collector
