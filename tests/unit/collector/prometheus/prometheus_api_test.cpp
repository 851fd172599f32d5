// PrometheusApi against a fake Prometheus: one failure text, one retry policy, typed answers.
#include "collector/prometheus/prometheus_api.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/curl_environment.h"
#include "tests/support/fake_http_server.h"

namespace netscore::collector {
namespace {

using testing::FakeHttpServer;

constexpr std::int64_t kApiEvalMs = 1'700'000'000'000;

PrometheusConfig fake_prometheus(const std::string& url) {
  PrometheusConfig config;
  config.url = url;
  config.timeout.value = std::chrono::seconds(5);
  config.connect_timeout.value = std::chrono::seconds(1);
  return config;
}

class PrometheusApiTest : public ::testing::Test {
 protected:
  FakeHttpServer server_;
  PrometheusClient client_{{.prometheus = fake_prometheus(server_.url())}};
  PrometheusApi api_{client_, {.retries = 2, .backoff_base = std::chrono::milliseconds(10)}};
};

TEST(DescribeHttpFailureTest, NamesTheSettingAndKeepsPrometheusOwnError) {
  EXPECT_EQ(describe_http_failure({.transport_error = "Couldn't connect"}),
            "transport error: Couldn't connect");
  EXPECT_EQ(describe_http_failure({.http_status = 503, .body = "busy"}), "http status 503");
  EXPECT_NE(
      describe_http_failure({.http_status = 401}).find("NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE"),
      std::string::npos);
  EXPECT_NE(describe_http_failure({.http_status = 404}).find("path prefix"), std::string::npos);
  EXPECT_EQ(describe_http_failure(
                {.http_status = 400,
                 .body = R"({"status":"error","errorType":"bad_data","error":"parse error"})"}),
            "http status 400: prometheus error errorType=bad_data error=parse error");
}

TEST_F(PrometheusApiTest, ARefreshRequestIsRetriedWithDoublingBackoffAndASideQuestionIsNot) {
  server_.respond_with({500, "oops", {}});
  std::vector<std::chrono::milliseconds> waits;
  const PrometheusApi::BackoffWait wait = [&waits](std::chrono::milliseconds d) {
    waits.push_back(d);
    return true;
  };
  unsigned attempts = 0;
  const ApiResult<std::string> body = api_.query_body("up", kApiEvalMs, &wait, attempts);
  EXPECT_FALSE(body.ok());
  EXPECT_EQ(body.error, "http status 500");
  EXPECT_EQ(body.http_status, 500);
  EXPECT_EQ(attempts, 3U);
  EXPECT_EQ(waits, (std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(10),
                                                           std::chrono::milliseconds(20)}));
  const ApiResult<ParsedVector> once = api_.query({.promql = "up", .node_label = "i"}, kApiEvalMs);
  EXPECT_EQ(once.error, "http status 500");
  EXPECT_EQ(server_.requests(), 4U);
}

TEST_F(PrometheusApiTest, ARejectedQueryIsAskedOnce) {
  server_.respond_with(
      {422, R"({"status":"error","errorType":"execution","error":"too many samples"})", {}});
  const PrometheusApi::BackoffWait wait = [](std::chrono::milliseconds) { return true; };
  unsigned attempts = 0;
  const ApiResult<std::string> body = api_.query_body("up", kApiEvalMs, &wait, attempts);
  EXPECT_EQ(attempts, 1U);
  EXPECT_NE(body.error.find("too many samples"), std::string::npos) << body.error;
}

TEST_F(PrometheusApiTest, SeriesLabelsAreEachSeriesLabels) {
  server_.respond_with({200,
                        R"({"status":"success","data":{"resultType":"vector","result":[)"
                        R"({"metric":{"__name__":"m","instance":"a"},"value":[1,"1"]},)"
                        R"({"metric":{"node":"b"},"value":[1,"2"]}]}})",
                        {}});
  const auto answer = api_.series_labels("m", kApiEvalMs);
  ASSERT_TRUE(answer.ok()) << answer.error;
  EXPECT_EQ(*answer.value,
            (std::vector<SeriesLabels>{{{"__name__", "m"}, {"instance", "a"}}, {{"node", "b"}}}));
  EXPECT_NE(server_.last_request().body.find("query=m&time=1700000000.000"), std::string::npos);
}

TEST_F(PrometheusApiTest, AMalformedAnswerIsTheDecodersError) {
  server_.respond_with({200, "not json", {}});
  const auto labels = api_.series_labels("m", kApiEvalMs);
  EXPECT_FALSE(labels.ok());
  EXPECT_NE(labels.error.find("unparsable response"), std::string::npos) << labels.error;
  const auto rules = api_.recording_rules();
  EXPECT_FALSE(rules.ok());
  EXPECT_NE(rules.error.find("unexpected rules answer"), std::string::npos) << rules.error;
}

TEST_F(PrometheusApiTest, RecordingRulesAreListedAndA404KeepsItsStatus) {
  server_.respond_with({200,
                        R"({"status":"success","data":{"groups":[{"name":"g","rules":[)"
                        R"x({"name":"r","query":"sum(x)","type":"recording"},)x"
                        R"({"name":"A","query":"up == 0","type":"alerting"}]}]}})",
                        {}});
  const auto rules = api_.recording_rules();
  ASSERT_TRUE(rules.ok()) << rules.error;
  ASSERT_EQ(rules.value->size(), 1U);
  EXPECT_EQ(rules.value->front().name, "r");
  EXPECT_EQ(rules.value->front().query, "sum(x)");
  EXPECT_NE(server_.last_request().target.find("/api/v1/rules?type=record"), std::string::npos);
  server_.respond_with({404, "404 page not found", {}});
  const auto missing = api_.recording_rules();
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.http_status, 404);
}

TEST_F(PrometheusApiTest, PodTrafficIsBytesPerSecondPerPod) {
  server_.respond_with({200,
                        R"({"status":"success","data":{"resultType":"vector","result":[)"
                        R"({"metric":{"namespace":"shop","pod":"web-1"},"value":[1,"1250.5"]}]}})",
                        {}});
  const auto answer = api_.pod_traffic("q", kApiEvalMs);
  ASSERT_TRUE(answer.ok()) << answer.error;
  ASSERT_EQ(answer.value->pods.size(), 1U);
  EXPECT_EQ(answer.value->pods[0].namespace_name, "shop");
  EXPECT_EQ(answer.value->pods[0].pod, "web-1");
  EXPECT_EQ(answer.value->pods[0].value, 1250.5);
}

}  // namespace
}  // namespace netscore::collector
