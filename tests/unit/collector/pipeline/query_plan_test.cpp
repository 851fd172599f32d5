// QueryPlan against a fake Prometheus that answers each request by what it asks.
#include "collector/pipeline/query_plan.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/model/inputs.h"
#include "tests/support/curl_environment.h"
#include "tests/support/fake_http_server.h"
#include "tests/unit/collector/pipeline/pipeline_test_config.h"

namespace netscore::collector {
namespace {

using testing::CannedResponse;
using testing::FakeHttpServer;
using testing::SeenRequest;

constexpr std::int64_t kEvalMs = 1'700'000'000'000;
constexpr std::chrono::milliseconds kRecheck{600'000};

std::string vector_body(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + series + "]}}";
}

std::string series(const std::string& labels, const std::string& value) {
  return R"({"metric":{)" + labels + R"(},"value":[1700000000,")" + value + R"("]})";
}

// The requests' kinds, in the order they came.
struct Script {
  std::vector<std::string> asked;
  std::string layout = series(R"("netscore_label":"instance")", "40");
  // The speed series as they are (one per node), and summed by node.
  std::string speeds = series(R"("instance":"a")", "125000000");
  std::string summed_speeds = series(R"("instance":"a")", "1") + "," +
                              series(R"("instance":"a","netscore_kind":"speed")", "125000000");
  std::string rules = R"({"status":"success","data":{"groups":[]}})";
  unsigned speed_status = 200;

  CannedResponse answer(const SeenRequest& request) {
    const std::string& body = request.body;
    if (request.target.find("/api/v1/rules") != std::string::npos) {
      asked.push_back("rules");
      return {200, rules, {}};
    }
    if (body.find("netscore_label") != std::string::npos) {
      asked.push_back("layout");
      return {200, vector_body(layout), {}};
    }
    if (body.find("node_network_speed_bytes") != std::string::npos) {
      const bool summed = body.find("count") != std::string::npos;
      asked.push_back(summed ? "summed speeds" : "speeds");
      return {speed_status, vector_body(summed ? summed_speeds : speeds), {}};
    }
    asked.push_back("batch");
    return {200, vector_body(series(R"("instance":"a")", "5")), {}};
  }
};

class QueryPlanTest : public ::testing::Test {
 protected:
  QueryPlanTest() {
    server_.respond_by([this](const SeenRequest& r) { return script_.answer(r); });
  }

  static QueryConfig config(Environment extra) {
    extra.emplace("NETSCORE_PROMETHEUS_URL", "http://127.0.0.1:1");
    extra.emplace("NETSCORE_INTERFACE", "eth0");
    return load_config(Component::collector, {}, extra).query;
  }

  QueryPlan make_plan(const QueryConfig& config, std::chrono::milliseconds recheck) {
    return QueryPlan(config, recheck, [this] { return now_; });
  }

  FakeHttpServer server_;
  Script script_;
  PrometheusClient client_{{.prometheus = pipeline_test_config(server_.url(), 0).prometheus}};
  PrometheusApi api_{client_, {}};
  // The plan's monotonic clock, in ms.
  std::int64_t now_ = 0;
};

TEST_F(QueryPlanTest, AutoIsResolvedToTheOneLabelTheSeriesCarry) {
  QueryPlan plan = make_plan(config({}), kRecheck);
  EXPECT_NE(plan.batch().promql.find("label_replace(label_replace("), std::string::npos);
  plan.prepare(plan.due(), api_, kEvalMs);
  EXPECT_EQ(plan.shape().node_label, "instance");
  EXPECT_EQ(plan.batch().node_label, "instance");
  EXPECT_EQ(plan.batch().promql.find("netscore_node"), std::string::npos);
  EXPECT_EQ(plan.counts().layout_checks, 1U);
  EXPECT_EQ(plan.counts().rule_checks, 1U);
  // Within the recheck interval nothing is asked again.
  now_ = kRecheck.count() - 1;
  plan.prepare(plan.due(), api_, kEvalMs);
  EXPECT_EQ(plan.counts().total(), 2U);
  now_ = kRecheck.count();
  plan.prepare(plan.due(), api_, kEvalMs);
  EXPECT_EQ(plan.counts().layout_checks, 2U);
}

TEST_F(QueryPlanTest, SeveralLayoutsKeepTheChain) {
  script_.layout = series(R"("netscore_label":"kubernetes_node")", "3") + "," +
                   series(R"("netscore_label":"instance")", "40");
  QueryPlan plan = make_plan(config({}), kRecheck);
  plan.prepare(plan.due(), api_, kEvalMs);
  EXPECT_EQ(plan.shape().node_label, "");
  EXPECT_EQ(plan.batch().node_label, "netscore_node");
}

TEST_F(QueryPlanTest, SeriesWithoutTheResolvedLabelRecheckTheLayoutAtOnce) {
  QueryPlan plan = make_plan(config({}), kRecheck);
  plan.prepare(plan.due(), api_, kEvalMs);
  script_.layout = series(R"("netscore_label":"node")", "40");
  ParsedVector answer;
  answer.missing_label = 1;
  now_ = 1;
  EXPECT_TRUE(plan.reconsider(answer, api_, kEvalMs));
  EXPECT_EQ(plan.batch().node_label, "node");
  EXPECT_EQ(plan.counts().layout_checks, 2U);
}

TEST_F(QueryPlanTest, ADuplicateReadPerSeriesSwitchesToTheSum) {
  QueryPlan plan = make_plan(config({{"NETSCORE_NODE_LABEL", "instance"}}), kRecheck);
  ASSERT_TRUE(plan.shape().per_series);
  ParsedVector fine;
  EXPECT_FALSE(plan.reconsider(fine, api_, kEvalMs));
  ParsedVector duplicated;
  duplicated.duplicate_part = 1;
  EXPECT_TRUE(plan.reconsider(duplicated, api_, kEvalMs));
  EXPECT_FALSE(plan.shape().per_series);
  EXPECT_TRUE(plan.batch().promql.starts_with("sum by (instance) ("));
  EXPECT_TRUE(script_.asked.empty());
}

TEST_F(QueryPlanTest, SpeedsAreCachedAndAskedAgainWhenDueOrForANewNode) {
  QueryPlan plan = make_plan(config({{"NETSCORE_NODE_LABEL", "instance"}}), kRecheck);
  std::vector<model::NodeSample> samples{{.node = "a"}, {.node = "b"}};
  ASSERT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  EXPECT_EQ(samples[0].speed, 125000000);
  EXPECT_EQ(samples[1].speed, 0);  // no speed series: known as such, not asked again
  EXPECT_EQ(plan.report(0).speeds_eval_time_ms, kEvalMs);
  samples = {{.node = "a"}, {.node = "b"}};
  now_ = 15'000;
  ASSERT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs + 15'000), "");
  EXPECT_EQ(samples[0].speed, 125000000);
  EXPECT_EQ(plan.counts().speed_queries, 1U);
  EXPECT_EQ(plan.report(0).speeds_eval_time_ms, kEvalMs);
  samples = {{.node = "a"}, {.node = "c"}};
  now_ = 30'000;
  plan.attach_speeds(plan.due(), samples, api_, kEvalMs + 30'000);
  EXPECT_EQ(plan.counts().speed_queries, 2U);
  EXPECT_EQ(plan.report(0).speeds_eval_time_ms, kEvalMs + 30'000);
  now_ = 30'000 + kRecheck.count();
  plan.attach_speeds(plan.due(), samples, api_, kEvalMs);
  EXPECT_EQ(plan.counts().speed_queries, 3U);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"speeds", "speeds", "speeds"}));
}

// A node with several speed series (several devices under one matcher) needs their sum: the
// plain read gives way to the summed one. A device without a speed (-1) counts as unusable.
TEST_F(QueryPlanTest, SeveralSpeedSeriesForANodeAreAskedAgainSummed) {
  script_.speeds = series(R"("instance":"a")", "125000000") + "," +
                   series(R"("instance":"a")", "125000000") + "," +
                   series(R"("instance":"b")", "-1");
  script_.summed_speeds = series(R"("instance":"a")", "2") + "," +
                          series(R"("instance":"a","netscore_kind":"speed")", "250000000") + "," +
                          series(R"("instance":"b")", "1") + "," +
                          series(R"("instance":"b","netscore_kind":"unusable_speed")", "1");
  QueryPlan plan = make_plan(config({{"NETSCORE_NODE_LABEL", "instance"}}), kRecheck);
  std::vector<model::NodeSample> samples{{.node = "a"}, {.node = "b"}};
  ASSERT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"speeds", "summed speeds"}));
  EXPECT_EQ(samples[0].speed, 250000000);
  EXPECT_EQ(samples[1].speed, 0);
  EXPECT_EQ(samples[1].unusable_speeds, 1U);
  EXPECT_EQ(plan.counts().speed_queries, 1U);
}

TEST_F(QueryPlanTest, APlainSpeedReadTellsUnusableDevicesApart) {
  script_.speeds =
      series(R"("instance":"a")", "125000000") + "," + series(R"("instance":"b")", "-1");
  QueryPlan plan = make_plan(config({{"NETSCORE_NODE_LABEL", "instance"}}), kRecheck);
  std::vector<model::NodeSample> samples{{.node = "a"}, {.node = "b"}};
  ASSERT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"speeds"}));
  EXPECT_EQ(samples[0].speed, 125000000);
  EXPECT_EQ(samples[0].unusable_speeds, 0U);
  EXPECT_EQ(samples[1].speed, 0);
  EXPECT_EQ(samples[1].unusable_speeds, 1U);
}

// Candidate labels not yet resolved to one: the speeds need the chain and its sum.
TEST_F(QueryPlanTest, SpeedsAreSummedWhileTheNodeLabelIsUnresolved) {
  QueryPlan plan = make_plan(config({}), kRecheck);
  std::vector<model::NodeSample> samples{{.node = "a"}};
  ASSERT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"summed speeds"}));
}

TEST_F(QueryPlanTest, AFailedSpeedRequestKeepsTheCacheAndFailsOnlyWithoutOne) {
  script_.speed_status = 500;
  QueryPlan plan = make_plan(config({{"NETSCORE_NODE_LABEL", "instance"}}), kRecheck);
  std::vector<model::NodeSample> samples{{.node = "a"}};
  EXPECT_NE(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  script_.speed_status = 200;
  now_ = 1;
  ASSERT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  script_.speed_status = 500;
  samples = {{.node = "a"}};
  now_ = 2 + kRecheck.count();
  EXPECT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  EXPECT_EQ(samples[0].speed, 125000000);
  EXPECT_EQ(plan.counts().failed, 2U);
}

TEST_F(QueryPlanTest, TheRawReceiveScoringAsksNothingApart) {
  QueryPlan plan = make_plan(config({{"NETSCORE_NODE_LABEL", "instance"},
                                     {"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
                                     {"NETSCORE_SCORE_BASIS", "raw"},
                                     {"NETSCORE_DIRECTION", "receive"}}),
                             kRecheck);
  std::vector<model::NodeSample> samples{{.node = "a"}};
  plan.prepare(plan.due(), api_, kEvalMs);
  EXPECT_EQ(plan.attach_speeds(plan.due(), samples, api_, kEvalMs), "");
  EXPECT_TRUE(script_.asked.empty());
}

// What a refresh asks apart is decided once, at its start, on the plan's clock; the raw receive
// scoring has nothing of it to ask.
TEST_F(QueryPlanTest, WhatIsDueFollowsTheClock) {
  QueryPlan plan = make_plan(config({}), kRecheck);
  const QueryPlan::Due first = plan.due();
  EXPECT_TRUE(first.layout && first.rules && first.speeds);
  std::vector<model::NodeSample> samples{{.node = "a"}};
  plan.prepare(first, api_, kEvalMs);
  ASSERT_EQ(plan.attach_speeds(first, samples, api_, kEvalMs), "");
  const QueryPlan::Due within = plan.due();
  EXPECT_FALSE(within.layout || within.rules || within.speeds);
  now_ = kRecheck.count();
  const QueryPlan::Due recheck = plan.due();
  EXPECT_TRUE(recheck.layout && recheck.rules && recheck.speeds);
  const QueryPlan::Due raw = make_plan(config({{"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
                                               {"NETSCORE_SCORE_BASIS", "raw"},
                                               {"NETSCORE_DIRECTION", "receive"}}),
                                       kRecheck)
                                 .due();
  EXPECT_FALSE(raw.rules || raw.speeds);
}

TEST_F(QueryPlanTest, MatchingRecordingRulesAreReadInsteadOfTheCounters) {
  script_.rules =
      R"({"status":"success","data":{"groups":[{"rules":[)"
      R"x({"name":"rx","type":"recording","query":"sum without (device) (rate(node_network_receive_bytes_total{device!~\"lo|veth.+\"}[5m]))"},)x"
      R"x({"name":"tx","type":"recording","query":"sum without (device) (rate(node_network_transmit_bytes_total{device!~\"lo|veth.+\"}[5m]))"}]}]}})x";
  QueryPlan plan =
      make_plan(config({{"NETSCORE_NODE_LABEL", "instance"}, {"NETSCORE_INTERFACE", "!lo|veth.+"}}),
                kRecheck);
  EXPECT_FALSE(plan.shape().per_series);  // several devices per node: summed
  plan.prepare(plan.due(), api_, kEvalMs);
  EXPECT_EQ(plan.batch().promql, R"({__name__=~"rx|tx"})");
  EXPECT_TRUE(plan.shape().per_series);  // a rule's series is one per target
  EXPECT_NE(plan.describe().find("recording rules rx and tx"), std::string::npos);
  // The rules' series gone: asked again, and the counters read when the rules are gone too.
  script_.rules = R"({"status":"success","data":{"groups":[]}})";
  now_ = 1;
  EXPECT_TRUE(plan.reconsider(ParsedVector{}, api_, kEvalMs));
  EXPECT_TRUE(plan.batch().promql.starts_with("sum by (instance) (rate("));
}

}  // namespace
}  // namespace netscore::collector
