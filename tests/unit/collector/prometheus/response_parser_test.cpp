#include "collector/prometheus/response_parser.h"

#include <cmath>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace netscore::collector
