// The netscore-collector binary: configuration errors, publishing, and a prompt clean SIGTERM.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "tests/support/binary_process.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_http_server.h"
#include "tests/support/table_name.h"

namespace netscore::testing {
namespace {

// The collector binary with exactly the given environment.
class CollectorBinary : public BinaryProcess {
 public:
  explicit CollectorBinary(std::vector<std::string> env, std::vector<std::string> args = {})
      : BinaryProcess({NETSCORE_COLLECTOR_BINARY, std::move(env), {}, {}, std::move(args)}) {}
};

TEST(CollectorBinaryTest, BadVariableExitsTwoNamingIt) {
  CollectorBinary collector({"NETSCORE_REFRESH_INTERVAL=soon"});
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(30)), 2);
  EXPECT_NE(collector.log().find("NETSCORE_REFRESH_INTERVAL"), std::string::npos)
      << collector.log();
}

TEST(CollectorBinaryTest, BadNodeLabelExitsTwoNamingIt) {
  CollectorBinary collector({"NETSCORE_NODE_LABEL=kubernetes-node"});
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(30)), 2);
  EXPECT_NE(collector.log().find("NETSCORE_NODE_LABEL"), std::string::npos) << collector.log();
}

TEST(CollectorBinaryTest, UnreadableHeadersFileExitsTwoNamingIt) {
  CollectorBinary collector({"NETSCORE_PROMETHEUS_HEADERS_FILE=/nonexistent/netscore-headers"});
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(10)), 2);
  EXPECT_NE(collector.log().find("NETSCORE_PROMETHEUS_HEADERS_FILE"), std::string::npos)
      << collector.log();
}

TEST(CollectorBinaryTest, CheckFailsWhenPrometheusIsUnreachable) {
  FakeHttpServer server;
  server.respond_with({503, "unavailable", {}});
  CollectorBinary collector({"NETSCORE_PROMETHEUS_URL=" + server.url()}, {"--check"});
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(10)), 1);
  EXPECT_NE(collector.log().find("FAIL: the query failed: http status 503"), std::string::npos)
      << collector.log();
}

// A retired variable and flag still start the process: each warns once with what decides its
// value now, and the check runs as without them.
TEST(CollectorBinaryTest, RetiredSettingsWarnAndAreIgnored) {
  FakeHttpServer server;
  server.respond_with({503, "unavailable", {}});
  CollectorBinary collector(
      {"NETSCORE_PROMETHEUS_URL=" + server.url(), "NETSCORE_RECHECK_INTERVAL=never"},
      {"--check", "--prometheus-retries=0"});
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(10)), 1);
  EXPECT_NE(collector.log().find("warning: NETSCORE_RECHECK_INTERVAL is retired and ignored: "
                                 "link speeds"),
            std::string::npos)
      << collector.log();
  EXPECT_NE(collector.log().find("warning: --prometheus-retries is retired and ignored"),
            std::string::npos)
      << collector.log();
  EXPECT_NE(collector.log().find("FAIL: the query failed: http status 503"), std::string::npos)
      << collector.log();
}

TEST(CollectorBinaryTest, CheckAndPrintRulesTogetherExitTwoNamingBoth) {
  CollectorBinary collector({}, {"--print-rules", "--check"});
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(10)), 2);
  EXPECT_NE(collector.log().find("--check and --print-rules"), std::string::npos)
      << collector.log();
}

class CollectorBinarySignalTest : public ::testing::TestWithParam<int> {};

// The refresh interval is an hour, so a prompt exit can only come from the signal waking the
// loop; the exit is awaited generously (a loaded machine under a sanitizer starts and stops
// processes slowly) and still far below the hour it would otherwise take.
TEST_P(CollectorBinarySignalTest, PublishesThenStopsPromptly) {
  FakeHttpServer server;
  server.respond_with({200,
                       R"({"status":"success","data":{"resultType":"vector","result":[)"
                       R"({"metric":{"kubernetes_node":"n1"},"value":[1,"42"]}]}})",
                       {}});
  const TableName shm("collector-bin");
  CollectorBinary collector({"NETSCORE_PROMETHEUS_URL=" + server.url(),
                             "NETSCORE_SHM_NAME=" + shm.str(),
                             "NETSCORE_NODE_LABEL=kubernetes_node", "NETSCORE_REFRESH_INTERVAL=1h",
                             "NETSCORE_LOG_LEVEL=debug"});
  shm::CollectorStatus status{};
  ASSERT_TRUE(eventually([&] {
    try {
      ScoreTableReader reader({shm});
      return reader.read_status(status) == ReadStatus::ok && status.refreshes_total > 0;
    } catch (const shm::TableError&) {
      return false;  // not created yet
    }
  })) << collector.log();
  EXPECT_EQ(status.refreshes_total, 1U);
  EXPECT_EQ(status.consecutive_failures, 0U);
  EXPECT_EQ(status.refresh_interval_ms, 3'600'000);
  EXPECT_EQ(status.writer_pid, collector.pid());
  collector.signal(GetParam());
  EXPECT_EQ(collector.wait_exit(std::chrono::minutes(1)), 0) << collector.log();
  EXPECT_NE(server.last_request().headers["user-agent"].find("netscore-collector/"),
            std::string::npos);
}

TEST(CollectorBinaryTest, CredentialsReachPrometheusButNeverTheLog) {
  FakeHttpServer server;
  server.respond_with({500, "down", {}});
  const std::string token_file =
      (std::filesystem::temp_directory_path() / ("netscore-bin-token-" + std::to_string(getpid())))
          .string();
  std::ofstream(token_file) << "tok-secret-123\n";
  const TableName shm("collector-secret");
  const std::string url =
      "http://user:pw-secret-456@" + server.url().substr(std::string("http://").size());
  CollectorBinary collector({"NETSCORE_PROMETHEUS_URL=" + url, "NETSCORE_SHM_NAME=" + shm.str(),
                             "NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE=" + token_file,
                             "NETSCORE_REFRESH_INTERVAL=1h", "NETSCORE_LOG_LEVEL=trace"});
  // The failure line is written (and flushed, being a warning) after the answer arrives.
  EXPECT_TRUE(collector.wait_for_log("prometheus failing", std::chrono::seconds(30)))
      << collector.log();
  collector.signal(SIGTERM);
  EXPECT_EQ(collector.wait_exit(std::chrono::seconds(30)), 0);
  const std::string log = collector.log();
  EXPECT_NE(log.find("prometheus failing url=http://REDACTED@127.0.0.1"), std::string::npos) << log;
  EXPECT_EQ(log.find("pw-secret-456"), std::string::npos) << log;
  EXPECT_EQ(log.find("tok-secret-123"), std::string::npos) << log;
  EXPECT_EQ(server.last_request().headers["authorization"], "Bearer tok-secret-123");
  std::filesystem::remove(token_file);
}

INSTANTIATE_TEST_SUITE_P(Signals, CollectorBinarySignalTest, ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return param_info.param == SIGTERM ? std::string("SIGTERM")
                                                              : std::string("SIGINT");
                         });

}  // namespace
}  // namespace netscore::testing
