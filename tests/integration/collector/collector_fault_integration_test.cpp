// Faults: every failed refresh keeps the last good snapshot and is recorded in the table status.
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <curl/curl.h>
#include <gtest/gtest.h>

#include "collector/pipeline/refresh_loop.h"
#include "collector/prometheus/query_builder.h"
#include "common/clock.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_http_server.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"

namespace netscore::testing {
namespace {

std::string percent_decoded(const std::string& text) {
  int length = 0;
  char* decoded = curl_easy_unescape(nullptr, text.c_str(), static_cast<int>(text.size()), &length);
  std::string out(decoded, static_cast<std::size_t>(length));
  curl_free(decoded);
  return out;
}

constexpr std::int64_t kEvalMs = 1'700'000'000'000;

std::string vector_of(const std::vector<std::pair<std::string, std::string>>& nodes) {
  std::string body = R"({"status":"success","data":{"resultType":"vector","result":[)";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) body += ',';
    body += R"({"metric":{"kubernetes_node":")" + nodes[i].first + R"("},"value":[1700000000,")" +
            nodes[i].second + R"("]})";
  }
  return body + "]}}";
}

const std::string kGoodBody = vector_of({{"a", "100"}, {"b", "50"}, {"c", "0"}});

class FakePrometheusTest : public ::testing::Test {
 protected:
  // The canned answers name nodes in kubernetes_node, as the original plugin's layout does.
  FakePrometheusTest() : config_(collector_config(server_.url())), table_("collector-fault") {
    config_.query.node_label = "kubernetes_node";
    config_.query.node_labels = {"kubernetes_node"};
  }

  // A good snapshot first, so every fault below has something to keep.
  Refresh& refresher_with_good_snapshot() {
    refresher_ = std::make_unique<Refresh>(config_, *client(), table_.writer());
    server_.respond_with({200, kGoodBody, {}});
    EXPECT_TRUE(refresher_->refresh(kEvalMs, no_wait()).ok);
    return *refresher_;
  }

  collector::PrometheusClient* client() {
    if (!client_) {
      collector::PrometheusClient::Options options{config_.prometheus};
      options.max_body_bytes = 1U << 20;
      client_ = std::make_unique<collector::PrometheusClient>(options);
    }
    return client_.get();
  }

  void expect_failure_keeps_snapshot(const CannedResponse& response,
                                     const std::string& error_part) {
    auto& refresher = refresher_with_good_snapshot();
    server_.respond_with(response);
    const auto result = refresher.refresh(kEvalMs + 15000, no_wait());
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.error.find(error_part), std::string::npos) << result.error;
    shm::SnapshotMeta meta{};
    const auto rows = table_.rows(meta);
    EXPECT_EQ(meta.publish_id, 1U);
    EXPECT_EQ(meta.eval_time_ms, kEvalMs);
    ASSERT_EQ(rows.size(), 3U);
    EXPECT_EQ(rows[0].name, "a");
    EXPECT_EQ(rows[0].score.raw, 100.0);
    const auto status = table_.status();
    EXPECT_EQ(status.consecutive_failures, 1U);
    EXPECT_EQ(status.failures_total, 1U);
    EXPECT_EQ(status.refreshes_total, 2U);
    EXPECT_NE(std::string(status.last_error).find(error_part), std::string::npos)
        << status.last_error;
    EXPECT_GT(status.last_success_mono_ns, 0);
    EXPECT_LT(status.last_success_mono_ns, status.heartbeat_mono_ns);
  }

  FakeHttpServer server_;
  Config config_;
  TableFixture table_;
  std::unique_ptr<collector::PrometheusClient> client_;
  std::unique_ptr<Refresh> refresher_;
};

TEST_F(FakePrometheusTest, SendsFormEncodedQueryAndTimeWithUserAgent) {
  // The first refresh also asks the link speeds, apart; the second asks the batch query alone:
  // the receive request, then the transmit one (the default direction is max).
  refresher_with_good_snapshot();
  const std::uint64_t before = server_.requests();
  ASSERT_TRUE(refresher_->refresh(kEvalMs, no_wait()).ok);
  ASSERT_EQ(server_.requests(), before + 2);
  const SeenRequest seen = server_.last_request();
  EXPECT_EQ(seen.target, "/api/v1/query");
  EXPECT_EQ(seen.headers.at("content-type"), "application/x-www-form-urlencoded");
  // The query's text is query_builder_test's; here, that it arrives form-encoded and whole.
  const std::string prefix = "query=";
  const std::string suffix = "&time=1700000000.000";
  ASSERT_TRUE(seen.body.starts_with(prefix) && seen.body.ends_with(suffix)) << seen.body;
  // The layout found (every series carries kubernetes_node, one per node): read as it is.
  EXPECT_TRUE(seen.body.starts_with("query=sum_over_time%28node_network_transmit")) << seen.body;
  const std::string encoded =
      seen.body.substr(prefix.size(), seen.body.size() - prefix.size() - suffix.size());
  EXPECT_EQ(encoded.find_first_of(" {}[]\"=&+"), std::string::npos) << encoded;
  EXPECT_EQ(percent_decoded(encoded),
            collector::build_batch_query(config_.query,
                                         {.node_label = "kubernetes_node", .per_series = true})
                .transmit_promql);
  EXPECT_TRUE(seen.headers.at("user-agent").starts_with("netscore-collector"));
  EXPECT_EQ(seen.headers.count("authorization"), 0U);
}

TEST_F(FakePrometheusTest, BearerTokenFileIsReadAndReReadWhenItChanges) {
  const std::filesystem::path token =
      std::filesystem::temp_directory_path() / ("netscore-token-" + std::to_string(getpid()));
  std::ofstream(token) << "first-token\n";
  config_.prometheus.bearer_token_file = token.string();
  refresher_with_good_snapshot();
  EXPECT_EQ(server_.last_request().headers.at("authorization"), "Bearer first-token");
  std::ofstream(token) << "second-token";
  // A distinct mtime without sleeping: set it explicitly.
  std::filesystem::last_write_time(
      token, std::filesystem::last_write_time(token) + std::chrono::seconds(5));
  ASSERT_TRUE(refresher_->refresh(kEvalMs, no_wait()).ok);
  EXPECT_EQ(server_.last_request().headers.at("authorization"), "Bearer second-token");
  std::filesystem::remove(token);
  ASSERT_FALSE(refresher_->refresh(kEvalMs, no_wait()).ok);
  EXPECT_NE(std::string(table_.status().last_error).find("bearer token file"), std::string::npos);
}

TEST_F(FakePrometheusTest, Http500KeepsLastSnapshot) {
  expect_failure_keeps_snapshot({500, "oops", {}}, "http status 500");
}

TEST_F(FakePrometheusTest, StatusErrorKeepsLastSnapshotWithPrometheusMessage) {
  expect_failure_keeps_snapshot(
      {422,
       R"({"status":"error","errorType":"execution","error":"query processing would load too many samples"})",
       {}},
      "http status 422: prometheus error errorType=execution error=query processing would load too "
      "many samples");
}

TEST_F(FakePrometheusTest, StatusErrorWith200KeepsLastSnapshot) {
  expect_failure_keeps_snapshot(
      {200, R"({"status":"error","errorType":"timeout","error":"query timed out"})", {}},
      "prometheus error errorType=timeout");
}

TEST_F(FakePrometheusTest, TruncatedJsonKeepsLastSnapshot) {
  expect_failure_keeps_snapshot({200, kGoodBody.substr(0, kGoodBody.size() / 2), {}},
                                "unparsable response");
}

TEST_F(FakePrometheusTest, HugeBodyIsCutOffAndKeepsLastSnapshot) {
  expect_failure_keeps_snapshot({200, std::string(3U << 20, ' ') + kGoodBody, {}},
                                "response body exceeds 1048576 bytes");
}

TEST_F(FakePrometheusTest, ZeroSeriesKeepsLastSnapshot) {
  expect_failure_keeps_snapshot({200, vector_of({}), {}}, "zero series");
}

TEST_F(FakePrometheusTest, MatrixResultKeepsLastSnapshot) {
  expect_failure_keeps_snapshot(
      {200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})", {}},
      "resultType \"matrix\"");
}

TEST_F(FakePrometheusTest, SlowerThanTimeoutKeepsLastSnapshot) {
  // Long enough for the good refresh before the fault on a loaded machine, short for a test.
  config_.prometheus.timeout = *parse_prom_duration("2s");
  const auto started = std::chrono::steady_clock::now();
  // The server would answer after two minutes; the timeout must cut that short. The bound is half
  // the server's delay, not a latency figure: a loaded machine meets it easily.
  expect_failure_keeps_snapshot({200, kGoodBody, std::chrono::minutes(2)},
                                "transport error: Timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::minutes(1));
}

TEST_F(FakePrometheusTest, NaNAndInfinityArePublishedInvalidOthersNormalised) {
  auto& refresher = refresher_with_good_snapshot();
  server_.respond_with(
      {200, vector_of({{"a", "NaN"}, {"b", "300"}, {"c", "+Inf"}, {"d", "100"}, {"e", "-5"}}), {}});
  const auto result = refresher.refresh(kEvalMs + 15000, no_wait());
  ASSERT_TRUE(result.ok) << result.error;
  shm::SnapshotMeta meta{};
  const auto rows = table_.rows(meta);
  ASSERT_EQ(rows.size(), 5U);
  EXPECT_EQ(meta.valid_count, 2U);
  EXPECT_FALSE(rows[0].score.valid());
  EXPECT_TRUE(std::isnan(rows[0].score.raw));
  EXPECT_TRUE(rows[1].score.valid());
  EXPECT_EQ(rows[1].score.node_score, 0);  // the busiest valid node
  EXPECT_FALSE(rows[2].score.valid());
  EXPECT_TRUE(rows[3].score.valid());
  EXPECT_EQ(rows[3].score.node_score, 100 - 100 * 100 / 300);
  EXPECT_FALSE(rows[4].score.valid());
}

TEST_F(FakePrometheusTest, RetriesTransientFailuresWithinOneRefresh) {
  config_.prometheus.retries = 2;
  auto& refresher = refresher_with_good_snapshot();
  const auto before = server_.requests();
  server_.respond_with({503, "unavailable", {}});
  unsigned waits = 0;
  const auto result =
      refresher.refresh(kEvalMs, [&](std::chrono::milliseconds) { return ++waits > 0; });
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.timing.attempts, 3U);
  EXPECT_EQ(waits, 2U);
  EXPECT_EQ(server_.requests() - before, 3U);
  // A rejected query (4xx) is not retried: asking again gives the same answer.
  server_.respond_with({400, R"({"status":"error","errorType":"bad_data","error":"bad"})", {}});
  EXPECT_EQ(refresher.refresh(kEvalMs, no_wait()).timing.attempts, 1U);
}

TEST_F(FakePrometheusTest, LoopRefreshesOnSchedule) {
  server_.respond_with({200, kGoodBody, {}});
  config_.refresh_interval = *parse_prom_duration("100ms");
  collector::Publisher publisher(collector::Publisher::options(config_, ""), table_.writer());
  collector::Measurer measurer(config_, *client());
  collector::RefreshLoop loop({std::chrono::milliseconds(100), [] { return kEvalMs; }}, measurer,
                              publisher, *client());
  std::jthread runner([&](std::stop_token stop) { loop.run(stop); });
  EXPECT_TRUE(eventually([&] { return loop.refreshes() >= 3; }));
  runner.request_stop();
  runner.join();
  EXPECT_GE(loop.refreshes(), 3U);
  EXPECT_EQ(table_.status().refreshes_total, loop.refreshes());
}

// A stop request ends run() long before the loop would have woken by itself. "Promptly" is judged
// against what the loop would otherwise wait (a two-minute interval or request), with a bound of
// half of that, so scheduling delays on a loaded machine cannot fail the test and a missing wake-up
// can.
class LoopStopTest : public FakePrometheusTest {
 protected:
  void start(collector::RefreshLoop& loop) {
    runner_ = std::jthread([this, &loop](std::stop_token stop) {
      loop.run(stop);
      returned_ = true;
    });
  }
  bool stops_before_it_would_wake() {
    runner_.request_stop();
    const bool returned = eventually([this] { return returned_.load(); }, std::chrono::minutes(1));
    runner_.join();
    return returned;
  }

  static constexpr std::chrono::minutes kWouldWait{2};
  std::jthread runner_;
  std::atomic<bool> returned_{false};
};

TEST_F(LoopStopTest, StopWakesTheLoopBetweenRefreshes) {
  server_.respond_with({200, kGoodBody, {}});
  collector::Publisher publisher(collector::Publisher::options(config_, ""), table_.writer());
  collector::Measurer measurer(config_, *client());
  collector::RefreshLoop loop({kWouldWait, [] { return kEvalMs; }}, measurer, publisher, *client());
  start(loop);
  ASSERT_TRUE(eventually([&] { return loop.refreshes() == 1; }));
  EXPECT_TRUE(stops_before_it_would_wake());
  EXPECT_EQ(loop.refreshes(), 1U);
}

TEST_F(LoopStopTest, StopAbortsASlowRequestInFlight) {
  server_.respond_with({200, kGoodBody, kWouldWait});
  config_.prometheus.timeout = *parse_prom_duration("2m");
  collector::Publisher publisher(collector::Publisher::options(config_, ""), table_.writer());
  collector::Measurer measurer(config_, *client());
  collector::RefreshLoop loop({kWouldWait, [] { return kEvalMs; }}, measurer, publisher, *client());
  start(loop);
  ASSERT_TRUE(eventually([&] { return server_.requests() >= 1; }));
  ASSERT_EQ(server_.requests(), 1U);
  EXPECT_TRUE(stops_before_it_would_wake());
  // The interrupted attempt is no Prometheus failure: nothing was recorded.
  ScoreTableReader reader({table_.name()});
  shm::CollectorStatus status{};
  EXPECT_EQ(reader.read_status(status), ReadStatus::empty);
}

TEST(RealPrometheusFaultTest, KilledBetweenRefreshesThenRecovers) {
  const std::int64_t now_s = std::time(nullptr);
  PrometheusProcess prometheus(
      SynthOptions{6, now_s + 3600, 1.5, 15, SynthLayout::kubernetes_node, {}});
  const Config config = collector_config(prometheus.url());
  TableFixture table("collector-kill");
  collector::PrometheusClient client({config.prometheus});
  Refresh refresher(config, client, table.writer());
  const std::int64_t eval_ms = now_s * 1000;

  ASSERT_TRUE(refresher.refresh(eval_ms, no_wait()).ok);
  shm::SnapshotMeta meta{};
  const auto good = table.rows(meta);
  ASSERT_EQ(good.size(), 6U);

  prometheus.kill();
  for (int i = 0; i < 2; ++i) {
    const auto result = refresher.refresh(eval_ms + 15000, no_wait());
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.error.find("transport error"), std::string::npos) << result.error;
  }
  auto status = table.status();
  EXPECT_EQ(status.consecutive_failures, 2U);
  EXPECT_EQ(status.failures_total, 2U);
  const auto kept = table.rows(meta);
  EXPECT_EQ(meta.publish_id, 1U);
  ASSERT_EQ(kept.size(), good.size());
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].score.raw, good[i].score.raw);

  prometheus.start();
  ASSERT_EQ(prometheus.url(), config.prometheus.url) << "restarted on another port";
  ASSERT_TRUE(refresher.refresh(eval_ms + 30000, no_wait()).ok);
  status = table.status();
  EXPECT_EQ(status.consecutive_failures, 0U);
  EXPECT_EQ(status.failures_total, 2U);
  EXPECT_EQ(status.refreshes_total, 4U);
  EXPECT_EQ(status.last_error[0], '\0');
  table.rows(meta);
  EXPECT_EQ(meta.publish_id, 2U);
  EXPECT_EQ(meta.eval_time_ms, eval_ms + 30000);
}

}  // namespace
}  // namespace netscore::testing
