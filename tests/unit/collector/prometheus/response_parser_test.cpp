#include "collector/prometheus/response_parser.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "collector/prometheus/query_builder.h"

namespace netscore::collector {
namespace {

std::string vector_body(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + series + "]}}";
}

std::string series(const std::string& node, const std::string& value) {
  return R"({"metric":{"kubernetes_node":")" + node + R"("},"value":[1700000000.5,")" + value +
         R"("]})";
}

TEST(SampleValueTest, ParsesPrometheusFloatStrings) {
  EXPECT_EQ(parse_sample_value("12345"), 12345.0);
  EXPECT_EQ(parse_sample_value("1.5e3"), 1500.0);
  EXPECT_EQ(parse_sample_value("-2.25"), -2.25);
  EXPECT_EQ(parse_sample_value("+7"), 7.0);
  EXPECT_TRUE(std::isnan(*parse_sample_value("NaN")));
  EXPECT_EQ(parse_sample_value("+Inf"), INFINITY);
  EXPECT_EQ(parse_sample_value("-Inf"), -INFINITY);
  EXPECT_FALSE(parse_sample_value(""));
  EXPECT_FALSE(parse_sample_value("12abc"));
  EXPECT_FALSE(parse_sample_value("abc"));
  EXPECT_FALSE(parse_sample_value("1e999"));
}

TEST(ResponseParserTest, ReadsEverySeries) {
  const auto r = parse_vector_response(vector_body(series("a", "10") + "," + series("b", "2.5")),
                                       "kubernetes_node");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.samples.size(), 2U);
  EXPECT_EQ(r.samples[0].node, "a");
  EXPECT_EQ(r.samples[0].value, 10.0);
  EXPECT_EQ(r.samples[1].node, "b");
  EXPECT_EQ(r.samples[1].value, 2.5);
  EXPECT_EQ(r.series, 2U);
  EXPECT_EQ(r.skipped(), 0U);
}

std::string kind_series(const std::string& node, const std::string& kind,
                        const std::string& value) {
  return R"({"metric":{"kubernetes_node":")" + node + R"(","netscore_kind":")" + kind +
         R"("},"value":[1700000000.5,")" + value + R"("]})";
}

TEST(ResponseParserTest, RateSeriesAnnotateTheirNodesScore) {
  const std::string body =
      vector_body(kind_series("b", "rate", "7.5") + "," + kind_series("a", "score", "10") + "," +
                  kind_series("b", "score", "20") + "," + kind_series("c", "score", "30") + "," +
                  kind_series("d", "rate", "1") + "," + kind_series("c", "rate", "NaN") + "," +
                  kind_series("a", "rate", "0"));
  const auto r = parse_vector_response(body, "kubernetes_node", "netscore_kind");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.samples.size(), 3U);
  EXPECT_EQ(r.series, 3U);
  EXPECT_EQ(r.rate_series, 4U);
  EXPECT_EQ(r.skipped(), 0U);
  EXPECT_EQ(r.samples[0].node, "a");
  EXPECT_EQ(r.samples[0].value, 10.0);
  EXPECT_TRUE(r.samples[0].rate_valid);
  EXPECT_EQ(r.samples[0].rate, 0.0);
  EXPECT_EQ(r.samples[1].node, "b");
  EXPECT_EQ(r.samples[1].value, 20.0);
  EXPECT_TRUE(r.samples[1].rate_valid);
  EXPECT_EQ(r.samples[1].rate, 7.5);
  EXPECT_EQ(r.samples[2].node, "c");
  EXPECT_FALSE(r.samples[2].rate_valid) << "NaN is no rate";
}

TEST(ResponseParserTest, ScoreIsRateCopiesTheValue) {
  const auto r =
      parse_vector_response(vector_body(series("a", "12.5")), "kubernetes_node", "", true);
  ASSERT_EQ(r.samples.size(), 1U);
  EXPECT_TRUE(r.samples[0].rate_valid);
  EXPECT_EQ(r.samples[0].rate, 12.5);
  const auto without = parse_vector_response(vector_body(series("a", "12.5")), "kubernetes_node");
  ASSERT_EQ(without.samples.size(), 1U);
  EXPECT_FALSE(without.samples[0].rate_valid);
}

// Every part the batch query names annotates its node's score series with its own field.
TEST(ResponseParserTest, EveryKindAnnotatesItsOwnField) {
  const std::string body = vector_body(
      kind_series("a", "score", "100") + "," + kind_series("a", "rate", "1.5") + "," +
      kind_series("a", "transmit_score", "200.25") + "," +
      kind_series("a", "transmit_rate", "2.5") + "," + kind_series("a", "speed", "125000000") +
      "," + kind_series("a", "unusable_speed", "2") + "," + kind_series("b", "score", "7"));
  const auto r = parse_vector_response(body, "kubernetes_node", "netscore_kind");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.series, 2U);
  EXPECT_EQ(r.rate_series, 5U);
  ASSERT_EQ(r.samples.size(), 2U);
  const auto& a = r.samples[0];
  EXPECT_EQ(a.node, "a");
  EXPECT_EQ(a.value, 100.0);
  EXPECT_TRUE(a.rate_valid);
  EXPECT_EQ(a.rate, 1.5);
  EXPECT_TRUE(a.transmit_value_valid);
  EXPECT_EQ(a.transmit_value, 200.25);
  EXPECT_TRUE(a.transmit_rate_valid);
  EXPECT_EQ(a.transmit_rate, 2.5);
  EXPECT_EQ(a.speed, 125000000.0);
  EXPECT_EQ(a.unusable_speeds, 2U);
  // A node the other parts do not mention keeps every annotation unset.
  const auto& b = r.samples[1];
  EXPECT_EQ(b.node, "b");
  EXPECT_FALSE(b.rate_valid);
  EXPECT_FALSE(b.transmit_value_valid);
  EXPECT_FALSE(b.transmit_rate_valid);
  EXPECT_EQ(b.speed, 0.0);
  EXPECT_EQ(b.unusable_speeds, 0U);
}

TEST(ResponseParserTest, NotFiniteAnnotationsAreNotValid) {
  const std::string body = vector_body(
      kind_series("a", "score", "1") + "," + kind_series("a", "transmit_rate", "NaN") + "," +
      kind_series("a", "transmit_score", "+Inf") + "," + kind_series("a", "speed", "+Inf") + "," +
      kind_series("a", "unusable_speed", "NaN") + "," + kind_series("b", "score", "2") + "," +
      kind_series("b", "transmit_rate", "-Inf") + "," + kind_series("b", "speed", "-1") + "," +
      kind_series("b", "unusable_speed", "-Inf") + "," + kind_series("c", "score", "3") + "," +
      kind_series("c", "speed", "NaN") + "," + kind_series("c", "rate", "+Inf"));
  const auto r = parse_vector_response(body, "kubernetes_node", "netscore_kind");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.samples.size(), 3U);
  EXPECT_EQ(r.skipped(), 0U) << "an annotation's value never skips the node";
  for (const auto& s : r.samples) {
    SCOPED_TRACE(s.node);
    EXPECT_FALSE(s.rate_valid);
    EXPECT_FALSE(s.transmit_rate_valid);
    EXPECT_FALSE(s.transmit_value_valid);
    EXPECT_EQ(s.speed, 0.0) << "only a positive finite speed is a speed";
    EXPECT_EQ(s.unusable_speeds, 0U);
  }
}

TEST(ResponseParserTest, AnUnusableCountBeyondUint32IsClamped) {
  const auto r = parse_vector_response(vector_body(kind_series("a", "score", "1") + "," +
                                                   kind_series("a", "unusable_speed", "1e20") +
                                                   "," + kind_series("b", "score", "1") + "," +
                                                   kind_series("b", "unusable_speed", "2.75")),
                                       "kubernetes_node", "netscore_kind");
  ASSERT_EQ(r.samples.size(), 2U);
  EXPECT_EQ(r.samples[0].unusable_speeds, 4294967295U);
  EXPECT_EQ(r.samples[1].unusable_speeds, 2U);
}

TEST(ResponseParserTest, AnAnnotationKeepsTheFirstOfDuplicateSeries) {
  const std::string body = vector_body(
      kind_series("a", "speed", "125000000") + "," + kind_series("a", "score", "1") + "," +
      kind_series("a", "speed", "1250000000") + "," + kind_series("a", "transmit_rate", "3") + "," +
      kind_series("a", "transmit_rate", "4") + "," + kind_series("a", "score", "2"));
  const auto r = parse_vector_response(body, "kubernetes_node", "netscore_kind");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.samples.size(), 1U);
  EXPECT_EQ(r.duplicate_node, 1U) << "a duplicate score series is counted";
  EXPECT_EQ(r.rate_series, 4U);
  EXPECT_EQ(r.samples[0].value, 1.0);
  EXPECT_EQ(r.samples[0].speed, 125000000.0);
  EXPECT_EQ(r.samples[0].transmit_rate, 3.0);
}

TEST(ResponseParserTest, AnnotationsWithoutAScoreSeriesAreDropped) {
  const std::string body = vector_body(
      kind_series("gone", "rate", "1") + "," + kind_series("gone", "transmit_rate", "2") + "," +
      kind_series("gone", "speed", "125000000") + "," + kind_series("gone", "unusable_speed", "1") +
      "," + kind_series("a", "score", "5") + "," +
      R"({"metric":{"netscore_kind":"speed"},"value":[1,"125000000"]},)" +
      kind_series("a", "transmit_rate", "not a number"));
  const auto r = parse_vector_response(body, "kubernetes_node", "netscore_kind");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.samples.size(), 1U);
  EXPECT_EQ(r.samples[0].node, "a");
  EXPECT_FALSE(r.samples[0].transmit_rate_valid);
  EXPECT_EQ(r.samples[0].speed, 0.0) << "a speed without a node label belongs to no node";
  EXPECT_EQ(r.series, 1U);
  EXPECT_EQ(r.rate_series, 6U);
  EXPECT_EQ(r.skipped(), 0U) << "the score series' problems alone are counted";
}

TEST(ResponseParserTest, AnUnknownKindIsAScoreSeries) {
  const auto r = parse_vector_response(vector_body(kind_series("a", "other", "9")),
                                       "kubernetes_node", "netscore_kind");
  ASSERT_EQ(r.samples.size(), 1U);
  EXPECT_EQ(r.samples[0].value, 9.0);
  EXPECT_EQ(r.series, 1U);
}

TEST(ResponseParserTest, ScoreIsRateGivesTheTransmitValueFromTheTransmitRate) {
  const std::string body = vector_body(
      kind_series("a", "score", "12.5") + "," + kind_series("a", "transmit_rate", "7.25") + "," +
      kind_series("b", "score", "1") + "," + kind_series("b", "transmit_rate", "NaN"));
  const auto r = parse_vector_response(body, "kubernetes_node", "netscore_kind", true);
  ASSERT_EQ(r.samples.size(), 2U);
  EXPECT_TRUE(r.samples[0].transmit_rate_valid);
  EXPECT_EQ(r.samples[0].transmit_rate, 7.25);
  EXPECT_TRUE(r.samples[0].transmit_value_valid);
  EXPECT_EQ(r.samples[0].transmit_value, 7.25);
  EXPECT_FALSE(r.samples[1].transmit_value_valid);
  EXPECT_FALSE(r.samples[1].transmit_rate_valid);
  // Without score_is_rate the transmit rate is no transmit value: the function's own part is.
  const auto without = parse_vector_response(body, "kubernetes_node", "netscore_kind");
  ASSERT_EQ(without.samples.size(), 2U);
  EXPECT_TRUE(without.samples[0].transmit_rate_valid);
  EXPECT_FALSE(without.samples[0].transmit_value_valid);
  EXPECT_FALSE(without.samples[0].rate_valid);
}

// The default refresh reads each direction in a request of its own: the transmit answer's series
// carry no kind label and annotate the receive answer's nodes.
TEST(BatchResponseTest, TheTransmitAnswerAnnotatesTheReceiveAnswersNodes) {
  BuiltQuery query{"receive", "kubernetes_node", "netscore_kind", true};
  query.transmit_promql = "transmit";
  query.transmit_untagged = kKindTransmitRate;
  const std::string receive = vector_body(series("a", "10") + "," + series("b", "20"));
  // c has no receive series; a "score" tag in the transmit answer is none of its parts.
  const std::string transmit =
      vector_body(series("a", "3") + "," + series("c", "4") + "," + kind_series("b", "score", "5"));
  const auto r = parse_batch_response(receive, transmit, query);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.series, 2U);
  EXPECT_EQ(r.rate_series, 3U);
  ASSERT_EQ(r.samples.size(), 2U);
  EXPECT_EQ(r.samples[0].node, "a");
  EXPECT_EQ(r.samples[0].rate, 10.0);
  EXPECT_TRUE(r.samples[0].transmit_rate_valid);
  EXPECT_EQ(r.samples[0].transmit_rate, 3.0);
  EXPECT_EQ(r.samples[0].transmit_value, 3.0);
  EXPECT_EQ(r.samples[1].node, "b");
  EXPECT_FALSE(r.samples[1].transmit_rate_valid);
  // With the function's own transmit value untagged, the tagged transmit rate still annotates.
  query.score_is_rate = false;
  query.transmit_untagged = kKindTransmitScore;
  const auto raw = parse_batch_response(
      receive, vector_body(series("a", "30") + "," + kind_series("a", "transmit_rate", "3")),
      query);
  ASSERT_TRUE(raw.ok()) << raw.error;
  EXPECT_EQ(raw.samples[0].transmit_value, 30.0);
  EXPECT_EQ(raw.samples[0].transmit_rate, 3.0);
}

TEST(BatchResponseTest, EitherAnswerMalformedOrFailedFailsTheWhole) {
  BuiltQuery query{"receive", "kubernetes_node", "netscore_kind", true};
  query.transmit_promql = "transmit";
  query.transmit_untagged = kKindTransmitRate;
  const std::string good = vector_body(series("a", "10"));
  EXPECT_FALSE(parse_batch_response(good, "{", query).ok());
  EXPECT_FALSE(parse_batch_response("{", good, query).ok());
  const auto failed = parse_batch_response(
      good, R"({"status":"error","errorType":"timeout","error":"query timed out"})", query);
  EXPECT_EQ(failed.error, "prometheus error errorType=timeout error=query timed out");
  EXPECT_TRUE(failed.samples.empty());
  // A query of one request ignores the second body.
  query.transmit_promql.clear();
  EXPECT_TRUE(parse_batch_response(good, "{", query).ok());
}

TEST(ResponseParserTest, KeepsNaNAndInfinitySamples) {
  const auto r = parse_vector_response(
      vector_body(series("a", "NaN") + "," + series("b", "+Inf") + "," + series("c", "-Inf")),
      "kubernetes_node");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.samples.size(), 3U);
  EXPECT_TRUE(std::isnan(r.samples[0].value));
  EXPECT_EQ(r.samples[1].value, INFINITY);
  EXPECT_EQ(r.samples[2].value, -INFINITY);
}

TEST(ResponseParserTest, CountsAndSkipsBadSeries) {
  const std::string body =
      vector_body(series("a", "1") + "," + R"({"metric":{"other":"x"},"value":[1,"5"]})" + "," +
                  series("a", "2") + "," + series("b", "twelve") + "," +
                  R"({"metric":{"kubernetes_node":"c"},"value":[1]})" + "," + R"(17)" + "," +
                  R"({"metric":{"kubernetes_node":"d"},"value":[1,3]})" + "," + series("e", "4"));
  const auto r = parse_vector_response(body, "kubernetes_node");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.series, 8U);
  EXPECT_EQ(r.missing_label, 1U);
  EXPECT_EQ(r.duplicate_node, 1U);
  EXPECT_EQ(r.not_a_number, 4U);
  ASSERT_EQ(r.samples.size(), 2U);
  EXPECT_EQ(r.samples[0].node, "a");
  EXPECT_EQ(r.samples[0].value, 1.0);
  EXPECT_EQ(r.samples[1].node, "e");
}

TEST(ResponseParserTest, EmptyVectorIsNotAnError) {
  const auto r = parse_vector_response(vector_body(""), "kubernetes_node");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.series, 0U);
}

TEST(ResponseParserTest, CollectsWarnings) {
  const auto r = parse_vector_response(
      R"({"status":"success","warnings":["partial response"],"data":{"resultType":"vector","result":[]}})",
      "n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.warnings.size(), 1U);
  EXPECT_EQ(r.warnings[0], "partial response");
}

struct ErrorCase {
  const char* name;
  const char* body;
  const char* expected;
};

class ResponseErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(ResponseErrorTest, WholeAnswerRejectedWithReason) {
  const auto r = parse_vector_response(GetParam().body, "kubernetes_node");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find(GetParam().expected), std::string::npos) << r.error;
  EXPECT_TRUE(r.samples.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ResponseErrorTest,
    testing::Values(
        ErrorCase{"EmptyBody", "", "unparsable response"},
        ErrorCase{"TruncatedJson",
                  R"({"status":"success","data":{"resultType":"vector","result":[{"metric":)",
                  "unparsable response"},
        ErrorCase{"NotAnObject", "[1,2]", "not a JSON object"},
        ErrorCase{"StatusError",
                  R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})",
                  "prometheus error errorType=bad_data error=parse error at char 3"},
        ErrorCase{"UnknownStatus", R"({"status":"weird"})", "status is \"weird\""},
        ErrorCase{"MissingStatus", R"({"data":{}})", "status is \"\""},
        ErrorCase{"MissingData", R"({"status":"success"})", "no data object"},
        ErrorCase{"MatrixResult",
                  R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
                  "resultType \"matrix\""},
        ErrorCase{"ScalarResult",
                  R"({"status":"success","data":{"resultType":"scalar","result":[1,"2"]}})",
                  "resultType \"scalar\""},
        ErrorCase{"ResultNotArray",
                  R"({"status":"success","data":{"resultType":"vector","result":{}}})",
                  "not an array"}),
    [](const testing::TestParamInfo<ErrorCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(RecordingRulesParseTest, KeepsRecordingRulesAndRefusesANonAnswer) {
  const RulesAnswer rules = parse_recording_rules(
      R"({"status":"success","data":{"groups":[{"rules":[)"
      R"x({"name":"r","query":"sum(rate(x[5m]))","type":"recording"},)x"
      R"({"name":"A","query":"up == 0","type":"alerting"}]},{"rules":[]}]}})");
  ASSERT_EQ(rules.error, "");
  ASSERT_EQ(rules.rules.size(), 1U);
  EXPECT_EQ(rules.rules[0].name, "r");
  EXPECT_EQ(rules.rules[0].query, "sum(rate(x[5m]))");
  EXPECT_NE(parse_recording_rules("404 page not found").error, "");
  EXPECT_NE(parse_recording_rules(R"({"status":"success","data":{}})").error, "");
  EXPECT_NE(parse_recording_rules(R"({"status":"success","data":{"groups":[{}]}})").error, "");
}

TEST(SeriesLabelsParseTest, EverySeriesWithItsLabels) {
  const LabelsAnswer answer = parse_series_labels(
      vector_body(R"({"metric":{"device":"eth0","instance":"a"},"value":[1,"1"]},"junk")"));
  ASSERT_EQ(answer.error, "");
  ASSERT_EQ(answer.series.size(), 1U);
  EXPECT_EQ(answer.series[0], (SeriesLabels{{"device", "eth0"}, {"instance", "a"}}));
  EXPECT_NE(parse_series_labels(R"({"status":"error","error":"x"})").error, "");
}

// cAdvisor-shaped answers: pods with both labels are kept; a series without a pod (a runtime that
// fills no pod labels), without a namespace, or without a finite value is skipped.
TEST(PodTrafficParseTest, KeepsPodsWithNamespaceAndNameAndSkipsTheRest) {
  const PodTrafficAnswer answer = parse_pod_traffic(
      vector_body(R"({"metric":{"namespace":"shop","pod":"web-1"},"value":[1,"1024"]},)"
                  R"({"metric":{"namespace":"shop","pod":""},"value":[1,"5"]},)"
                  R"({"metric":{"pod":"orphan"},"value":[1,"5"]},)"
                  R"({"metric":{"namespace":"a","pod":"b"},"value":[1,"NaN"]},)"
                  R"({"metric":{"namespace":"kube-system","pod":"dns-0"},"value":[1,"0"]},)"
                  R"(7)"));
  ASSERT_EQ(answer.error, "");
  EXPECT_EQ(answer.series, 6U);
  EXPECT_EQ(answer.skipped, 4U);
  ASSERT_EQ(answer.pods.size(), 2U);
  EXPECT_EQ(answer.pods[0].namespace_name, "shop");
  EXPECT_EQ(answer.pods[0].pod, "web-1");
  EXPECT_EQ(answer.pods[0].value, 1024);
  EXPECT_EQ(answer.pods[1].pod, "dns-0");
  EXPECT_EQ(answer.pods[1].value, 0);
  EXPECT_NE(
      parse_pod_traffic(R"({"status":"success","data":{"resultType":"matrix","result":[]}})").error,
      "");
}

}  // namespace
}  // namespace netscore::collector
