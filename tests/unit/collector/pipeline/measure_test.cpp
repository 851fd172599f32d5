// measure() against a fake Prometheus answering every request with one canned response.
#include "collector/pipeline/measure.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "common/model/inputs.h"
#include "tests/support/curl_environment.h"
#include "tests/unit/collector/pipeline/pipeline_test_config.h"
#include "tests/support/fake_http_server.h"

namespace netscore::collector {
namespace {

using testing::CannedResponse;
using testing::FakeHttpServer;
using testing::SeenRequest;

constexpr std::int64_t kEvalMs = 1'700'000'000'000;

// a: score 100 with a rate of 2 B/s; b: 50; a scrape address; a series without the node label.
const std::string kMixedBody =
    R"({"status":"success","data":{"resultType":"vector","result":[)"
    R"({"metric":{"kubernetes_node":"a"},"value":[1700000000,"100"]},)"
    R"({"metric":{"kubernetes_node":"a","netscore_kind":"rate"},"value":[1700000000,"2"]},)"
    R"({"metric":{"kubernetes_node":"b"},"value":[1700000000,"50"]},)"
    R"({"metric":{"kubernetes_node":"10.0.0.2:9100"},"value":[1700000000,"30"]},)"
    R"({"metric":{"job":"node"},"value":[1700000000,"7"]}]}})";
const std::string kGoodBody = R"({"status":"success","data":{"resultType":"vector","result":[)"
                              R"({"metric":{"kubernetes_node":"a"},"value":[1700000000,"100"]}]}})";
const std::string kEmptyBody = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

Measurer::BackoffWait no_wait() {
  return [](std::chrono::milliseconds) { return true; };
}

class MeasureTest : public ::testing::Test {
 protected:
  MeasureTest()
      : config_(pipeline_test_config(server_.url(), 2)),
        client_({.prometheus = config_.prometheus}) {}

  FakeHttpServer server_;
  Config config_;
  PrometheusClient client_;
};

TEST_F(MeasureTest, KeepsTheSeriesThatNameANodeAndCountsTheRest) {
  server_.respond_with({200, kMixedBody, {}});
  Measurer measurer(config_, client_);
  const Measurement m = measurer.measure(kEvalMs, no_wait());
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_TRUE(m.nodes.queried);
  EXPECT_TRUE(m.nodes.answered);
  EXPECT_FALSE(m.stopped);
  EXPECT_EQ(m.error, "");
  EXPECT_EQ(m.eval_time_ms, kEvalMs);
  ASSERT_EQ(m.nodes.samples.size(), 2U);
  EXPECT_EQ(m.nodes.samples[0].node, "a");
  EXPECT_EQ(m.nodes.samples[0].value, 100);
  EXPECT_TRUE(m.nodes.samples[0].rate_valid);
  EXPECT_EQ(m.nodes.samples[0].rate, 2);
  EXPECT_EQ(m.nodes.samples[1].node, "b");
  EXPECT_EQ(m.nodes.samples[1].value, 50);
  EXPECT_FALSE(m.nodes.samples[1].rate_valid);
  EXPECT_EQ(m.nodes.series, 4U);
  EXPECT_EQ(m.nodes.missing_label, 1U);
  EXPECT_EQ(m.nodes.rejected.rejected, 1U);
  EXPECT_EQ(m.nodes.rejected.example, "10.0.0.2:9100");
  EXPECT_EQ(m.nodes.skipped, 2U);
  EXPECT_NE(m.nodes.rejected_names.find("10.0.0.2:9100"), std::string::npos)
      << m.nodes.rejected_names;
  // A usable answer needs no diagnosis; the status says which names were not node names.
  EXPECT_FALSE(m.diagnosis.findings.has_value());
  ASSERT_TRUE(m.diagnosis.status.has_value());
  EXPECT_EQ(*m.diagnosis.status, m.nodes.rejected_names);
  EXPECT_EQ(m.timing.attempts, 1U);
  EXPECT_EQ(server_.requests(), 1U);
  EXPECT_LE(m.timing.started_wall_ms, m.timing.finished_wall_ms);
  EXPECT_GT(m.timing.finished_mono_ns, 0);
  EXPECT_GE(m.timing.duration_us, 0);
  // One device, one label: the seed's own per-series read, no sum by node.
  EXPECT_NE(server_.last_request().body.find("query=sum_over_time"), std::string::npos);
}

TEST_F(MeasureTest, TheRateFunctionsAnswersCarryTransmitAndLinkSpeedPerNode) {
  // With rate as the function the score is the receive rate, and the transmit rate is the
  // transmit value too; a: both speeds and directions, b: a -1 device and no transmit series.
  // Each direction is a request of its own; the recording rules and the speeds are asked apart.
  const auto answer = [](const std::string& series) {
    return CannedResponse{
        200,
        R"({"status":"success","data":{"resultType":"vector","result":[)" + series + "]}}",
        {}};
  };
  server_.respond_by([&](const SeenRequest& request) {
    if (request.target.starts_with("/api/v1/rules"))
      return CannedResponse{200, R"({"status":"success","data":{"groups":[]}})", {}};
    if (request.body.find("transmit") != std::string::npos)
      return answer(R"({"metric":{"kubernetes_node":"a"},"value":[1700000000,"300"]})");
    if (request.body.find("speed") != std::string::npos) {
      return answer(R"({"metric":{"kubernetes_node":"a"},"value":[1700000000,"125000000"]},)"
                    R"({"metric":{"kubernetes_node":"b"},"value":[1700000000,"-1"]})");
    }
    return answer(R"({"metric":{"kubernetes_node":"a"},"value":[1700000000,"100"]},)"
                  R"({"metric":{"kubernetes_node":"b"},"value":[1700000000,"50"]})");
  });
  Config config = config_;
  config.query.function = QueryFunction::rate;
  config.query.basis = ScoreBasis::utilisation;
  config.query.direction = Direction::max;
  Measurer measurer(config, client_);
  ASSERT_TRUE(measurer.query().score_is_rate);
  const Measurement m = measurer.measure(kEvalMs, no_wait());
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.nodes.series, 2U);
  EXPECT_EQ(m.nodes.skipped, 0U);
  EXPECT_EQ(m.timing.attempts, 2U);
  EXPECT_EQ(m.plan.asked_apart, 2U);
  EXPECT_EQ(server_.requests(), 4U);
  ASSERT_EQ(m.nodes.samples.size(), 2U);
  const model::NodeSample& a = m.nodes.samples[0];
  EXPECT_EQ(a.node, "a");
  EXPECT_TRUE(a.rate_valid);
  EXPECT_EQ(a.rate, 100);
  EXPECT_TRUE(a.transmit_rate_valid);
  EXPECT_EQ(a.transmit_rate, 300);
  EXPECT_TRUE(a.transmit_value_valid);
  EXPECT_EQ(a.transmit_value, 300);
  EXPECT_EQ(a.speed, 125000000);
  EXPECT_EQ(a.unusable_speeds, 0U);
  const model::NodeSample& b = m.nodes.samples[1];
  EXPECT_EQ(b.node, "b");
  EXPECT_FALSE(b.transmit_rate_valid);
  EXPECT_EQ(b.speed, 0);
  EXPECT_EQ(b.unusable_speeds, 1U);
}

// The rebalance reading is the one query over NETSCORE_REBALANCE_WINDOW (45s below, URL-encoded).
bool rebalance_query(const SeenRequest& request) {
  return request.body.find("%5B45s%5D") != std::string::npos;
}

// With NETSCORE_REBALANCE_LABEL each refresh also reads the load the descheduler's figure is
// computed from, over NETSCORE_REBALANCE_WINDOW, once: a failure leaves the refresh's figures
// alone. The load is not clamped: 1.25 is a link counted above its speed.
TEST_F(MeasureTest, WithTheRebalanceLabelTheDeschedulersUtilisationIsReadToo) {
  std::atomic<bool> failing{false};
  server_.respond_by([&](const SeenRequest& request) {
    if (!rebalance_query(request)) return CannedResponse{200, kGoodBody, {}};
    if (failing) return CannedResponse{503, "unavailable", {}};
    return CannedResponse{200,
                          R"({"status":"success","data":{"resultType":"vector","result":[)"
                          R"({"metric":{"instance":"a"},"value":[1700000000,"0.25"]},)"
                          R"({"metric":{"instance":"b"},"value":[1700000000,"1.25"]}]}})",
                          {}};
  });
  Config config = config_;
  Measurer without(config, client_);
  EXPECT_EQ(without.measure(kEvalMs, no_wait()).rebalance.utilisation, nullptr);
  EXPECT_EQ(server_.requests(), 1U);

  config.rebalance.label = true;
  config.rebalance.window = *parse_prom_duration("45s");
  Measurer measurer(config, client_);
  Measurement m = measurer.measure(kEvalMs, no_wait());
  ASSERT_TRUE(m.ok) << m.error;
  ASSERT_NE(m.rebalance.utilisation, nullptr) << m.rebalance.error;
  EXPECT_EQ(m.rebalance.utilisation->by_node, (model::NodeUtilisation{{"a", 0.25}, {"b", 1.25}}));
  EXPECT_EQ(m.rebalance.utilisation->direction, Direction::receive);
  EXPECT_TRUE(rebalance_query(server_.last_request())) << server_.last_request().body;
  EXPECT_EQ(server_.last_request().body.find("clamp"), std::string::npos)
      << server_.last_request().body;
  EXPECT_EQ(server_.requests(), 3U);

  failing = true;
  m = measurer.measure(kEvalMs, no_wait());
  EXPECT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.rebalance.utilisation, nullptr);
  EXPECT_NE(m.rebalance.error.find("503"), std::string::npos) << m.rebalance.error;
  EXPECT_EQ(server_.requests(), 5U) << "one attempt";
}

// With direction max the relative figure compares nodes in the direction the cluster's traffic
// mostly goes: both directions are read and the one with the larger mean kept (transmit 0.5 against
// receive 0.375 first, then receive 0.375 against transmit 0.25). Per node the busier side would
// hold a's receive of 0.25 against b's transmit. The absolute figure reads the busier side, once.
TEST_F(MeasureTest, WithDirectionMaxTheRelativeFigureReadsTheDirectionWithTheLargerMean) {
  const auto answer = [](double a, double b) {
    return CannedResponse{200,
                          R"({"status":"success","data":{"resultType":"vector","result":[)"
                          R"({"metric":{"instance":"a"},"value":[1700000000,")" +
                              std::to_string(a) +
                              R"("]},{"metric":{"instance":"b"},"value":[1700000000,")" +
                              std::to_string(b) + R"("]}]}})",
                          {}};
  };
  std::atomic<double> transmit_of_a{0.9};
  server_.respond_by([&](const SeenRequest& request) {
    if (!rebalance_query(request)) return CannedResponse{200, kGoodBody, {}};
    const bool receive = request.body.find("receive") != std::string::npos;
    const bool transmit = request.body.find("transmit") != std::string::npos;
    if (receive && transmit) return answer(0.7, 0.5);  // the busier side of each
    return receive ? answer(0.25, 0.5) : answer(transmit_of_a, 0.1);
  });
  Config config = config_;
  config.query.direction = Direction::max;
  config.rebalance.label = true;
  config.rebalance.window = *parse_prom_duration("45s");
  Measurer measurer(config, client_);
  Measurement m = measurer.measure(kEvalMs, no_wait());
  ASSERT_NE(m.rebalance.utilisation, nullptr) << m.rebalance.error;
  EXPECT_EQ(m.rebalance.utilisation->direction, Direction::transmit);
  EXPECT_EQ(m.rebalance.utilisation->by_node, (model::NodeUtilisation{{"a", 0.9}, {"b", 0.1}}));

  transmit_of_a = 0.4;
  m = measurer.measure(kEvalMs, no_wait());
  ASSERT_NE(m.rebalance.utilisation, nullptr) << m.rebalance.error;
  EXPECT_EQ(m.rebalance.utilisation->direction, Direction::receive);
  EXPECT_EQ(m.rebalance.utilisation->by_node, (model::NodeUtilisation{{"a", 0.25}, {"b", 0.5}}));

  config.rebalance.figure = RebalanceFigure::absolute;
  Measurer absolute(config, client_);
  m = absolute.measure(kEvalMs, no_wait());
  ASSERT_NE(m.rebalance.utilisation, nullptr) << m.rebalance.error;
  EXPECT_EQ(m.rebalance.utilisation->direction, Direction::max);
  EXPECT_EQ(m.rebalance.utilisation->by_node, (model::NodeUtilisation{{"a", 0.7}, {"b", 0.5}}));
}

// A reading that lacks a node with a link speed says so: its window may hold fewer than two
// scrapes, and the descheduler skips its cycle while a node has no series.
TEST_F(MeasureTest, ARebalanceReadingWithoutANodeWithASpeedNamesIt) {
  server_.respond_by([&](const SeenRequest& request) {
    if (!rebalance_query(request)) return CannedResponse{200, kMixedBody, {}};
    return CannedResponse{200,
                          R"({"status":"success","data":{"resultType":"vector","result":[)"
                          R"({"metric":{"instance":"b"},"value":[1700000000,"0.5"]}]}})",
                          {}};
  });
  Config config = config_;
  config.rebalance.label = true;
  config.rebalance.window = *parse_prom_duration("45s");
  Measurer without_speeds(config, client_);
  EXPECT_EQ(without_speeds.measure(kEvalMs, no_wait()).rebalance.missing, "")
      << "a node without a link speed has no utilisation";
  config.query.fallback_speed = 125e6;
  Measurer measurer(config, client_);
  const Measurement m = measurer.measure(kEvalMs, no_wait());
  ASSERT_NE(m.rebalance.utilisation, nullptr) << m.rebalance.error;
  EXPECT_EQ(m.rebalance.missing,
            "1 node with a link speed (a) without a utilisation over 45s "
            "(NETSCORE_REBALANCE_WINDOW): fewer than two scrapes in it?");
}

TEST_F(MeasureTest, RetriesAServerErrorWithDoublingBackoff) {
  server_.respond_with({500, "oops", {}});
  Measurer measurer(config_, client_);
  std::vector<std::chrono::milliseconds> waits;
  const Measurement m = measurer.measure(kEvalMs, [&](std::chrono::milliseconds d) {
    waits.push_back(d);
    return true;
  });
  EXPECT_FALSE(m.ok);
  EXPECT_FALSE(m.nodes.queried);
  EXPECT_FALSE(m.nodes.answered);
  EXPECT_EQ(m.error, "http status 500");
  EXPECT_EQ(m.timing.attempts, 3U);
  EXPECT_EQ(server_.requests(), 3U);
  EXPECT_EQ(waits, (std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(200),
                                                           std::chrono::milliseconds(400)}));
  EXPECT_FALSE(m.diagnosis.status.has_value()) << "an unreachable Prometheus says nothing new";
  EXPECT_FALSE(m.diagnosis.findings.has_value());
}

TEST_F(MeasureTest, AWaitThatIsStoppedEndsTheRetries) {
  server_.respond_with({503, "busy", {}});
  Measurer measurer(config_, client_);
  const Measurement m = measurer.measure(kEvalMs, [](std::chrono::milliseconds) { return false; });
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.timing.attempts, 1U);
}

TEST_F(MeasureTest, ARejectedQueryIsNotRetried) {
  server_.respond_with(
      {422, R"({"status":"error","errorType":"execution","error":"too many samples"})", {}});
  Measurer measurer(config_, client_);
  const Measurement m = measurer.measure(kEvalMs, no_wait());
  EXPECT_EQ(m.timing.attempts, 1U);
  EXPECT_NE(m.error.find("too many samples"), std::string::npos) << m.error;
}

TEST_F(MeasureTest, AMalformedAnswerIsAnErrorWithoutDiagnosis) {
  server_.respond_with({200, "not json", {}});
  Measurer measurer(config_, client_);
  const Measurement m = measurer.measure(kEvalMs, no_wait());
  EXPECT_FALSE(m.ok);
  EXPECT_TRUE(m.nodes.queried);
  EXPECT_FALSE(m.nodes.answered);
  EXPECT_FALSE(m.error.empty());
  EXPECT_FALSE(m.diagnosis.findings.has_value());
  EXPECT_FALSE(m.diagnosis.status.has_value());
  EXPECT_EQ(server_.requests(), 1U);
}

TEST_F(MeasureTest, NoUsableSeriesIsDiagnosedOncePerFailingStreak) {
  server_.respond_with({200, kEmptyBody, {}});
  Measurer measurer(config_, client_);
  const Measurement first = measurer.measure(kEvalMs, no_wait());
  EXPECT_FALSE(first.ok);
  EXPECT_TRUE(first.nodes.answered);
  EXPECT_EQ(first.error, "zero series in the answer");
  ASSERT_TRUE(first.diagnosis.findings.has_value());
  ASSERT_TRUE(first.diagnosis.status.has_value());
  EXPECT_EQ(*first.diagnosis.status, first.diagnosis.findings->summary());
  // The diagnosis asks for the metric's devices, then (none) whether node_uname_info exists.
  EXPECT_EQ(server_.requests(), 3U);

  const Measurement second = measurer.measure(kEvalMs, no_wait());
  EXPECT_FALSE(second.ok);
  EXPECT_FALSE(second.diagnosis.findings.has_value());
  EXPECT_FALSE(second.diagnosis.status.has_value()) << "the streak's diagnosis stays";
  EXPECT_EQ(server_.requests(), 4U);

  server_.respond_with({200, kGoodBody, {}});
  const Measurement recovered = measurer.measure(kEvalMs, no_wait());
  ASSERT_TRUE(recovered.ok);
  EXPECT_EQ(recovered.diagnosis.status, std::optional<std::string>(""));

  server_.respond_with({200, kEmptyBody, {}});
  EXPECT_TRUE(measurer.measure(kEvalMs, no_wait()).diagnosis.findings.has_value())
      << "a new streak";
}

TEST_F(MeasureTest, CheckDiagnosesEveryIncompleteAnswerWithoutRetrying) {
  server_.respond_with({200, kMixedBody, {}});
  Measurer measurer(config_, client_,
                    {.retries = 0, .diagnose = Measurer::DiagnoseWhen::incomplete_answer});
  const Measurement partial = measurer.measure(kEvalMs, no_wait());
  EXPECT_TRUE(partial.ok);
  EXPECT_TRUE(partial.diagnosis.findings.has_value());
  EXPECT_TRUE(measurer.measure(kEvalMs, no_wait()).diagnosis.findings.has_value());

  server_.respond_with({200, kGoodBody, {}});
  EXPECT_FALSE(measurer.measure(kEvalMs, no_wait()).diagnosis.findings.has_value());

  server_.respond_with({500, "oops", {}});
  const auto before = server_.requests();
  EXPECT_EQ(measurer.measure(kEvalMs, no_wait()).timing.attempts, 1U);
  EXPECT_EQ(server_.requests(), before + 1);
}

TEST_F(MeasureTest, AnAbortedQueryIsStopped) {
  server_.respond_with({200, kGoodBody, {}});
  Measurer measurer(config_, client_);
  client_.abort();
  const Measurement m = measurer.measure(kEvalMs, no_wait());
  EXPECT_TRUE(m.stopped);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.error, "stopped");
}

}  // namespace
}  // namespace netscore::collector
