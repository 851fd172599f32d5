#include "collector/prometheus/query_builder.h"

#include <gtest/gtest.h>

#include "common/duration.h"

namespace netscore::collector {
namespace {

// The seed's function: these cases pin the original plugin's exact query.
QueryConfig base_config() {
  QueryConfig c;
  c.function = QueryFunction::sum_over_time;
  c.metric = "node_network_receive_bytes_total";
  c.interface = "eth0";
  c.time_range = *parse_prom_duration("5m");
  c.node_label = "kubernetes_node";
  return c;
}

TEST(QuoteTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(quote_promql_string("eth0"), R"("eth0")");
  EXPECT_EQ(quote_promql_string(R"(a"b)"), R"("a\"b")");
  EXPECT_EQ(quote_promql_string(R"(a\b)"), R"("a\\b")");
  EXPECT_EQ(quote_promql_string("a\nb\rc\td"), R"("a\nb\rc\td")");
  EXPECT_EQ(quote_promql_string(std::string("a\x01z", 3)), R"("a\x01z")");
  EXPECT_EQ(quote_promql_string(""), R"("")");
}

TEST(QuoteTest, InjectionAttemptStaysInsideTheLiteral) {
  const std::string quoted = quote_promql_string(R"(x"} or vector(1) #)");
  EXPECT_EQ(quoted, R"("x\"} or vector(1) #")");
}

constexpr const char* kLabelScore =
    R"(sum by (kubernetes_node) (sum_over_time(node_network_receive_bytes_total{device="eth0"}[5m])))";
constexpr const char* kLabelRate =
    R"(sum by (kubernetes_node) (rate(node_network_receive_bytes_total{device="eth0"}[5m])))";

std::string tagged(const std::string& expr, const std::string& kind) {
  return "label_replace(" + expr + R"(, "netscore_kind", ")" + kind + R"(", "", ""))";
}

// The transmit rate of a link-scoring batch, `by` and `join` as the score part has them.
std::string transmit_rate(const std::string& by, const std::string& device,
                          const std::string& join = "") {
  return "sum by (" + by + ") (rate(node_network_transmit_bytes_total{" + device + "}[5m])" + join +
         ")";
}

// The transmit request of a batch whose function is sum_over_time and whose direction is not
// receive: the transmit score untagged, the transmit rate tagged.
std::string transmit_request(const std::string& by, const std::string& device) {
  return "sum by (" + by + ") (sum_over_time(node_network_transmit_bytes_total{" + device +
         "}[5m])) or " + tagged(transmit_rate(by, device), "transmit_rate");
}

// The seed's scoring, raw bytes received: exactly the two parts it always asked.
TEST(BatchQueryTest, RawReceiveAsksTheScoreAndTheRateAlone) {
  const BuiltQuery q = build_batch_query(base_config());
  EXPECT_EQ(q.promql, std::string(kLabelScore) + " or " + tagged(kLabelRate, "rate"));
  EXPECT_EQ(q.transmit_promql, "");
}

// Scoring transmit needs its raw value too: for the raw basis, and for the nodes the utilisation
// basis scores raw because they have no speed. It leads the transmit request, untagged. The rate
// function's transmit rate stands for it.
TEST(BatchQueryTest, TheTransmitScoreIsAskedWhenTheDirectionIsNotReceive) {
  for (const auto basis : {ScoreBasis::raw, ScoreBasis::utilisation}) {
    QueryConfig c = base_config();
    c.basis = basis;
    for (const auto direction : {Direction::transmit, Direction::max}) {
      c.direction = direction;
      const BuiltQuery q = build_batch_query(c);
      EXPECT_EQ(q.transmit_promql, transmit_request("kubernetes_node", R"(device="eth0")"));
      EXPECT_EQ(q.transmit_untagged, "transmit_score");
      EXPECT_EQ(q.promql.find("transmit"), std::string::npos);
    }
    c.direction = Direction::receive;
    EXPECT_EQ(build_batch_query(c).transmit_promql.find("transmit_score"), std::string::npos);
    c.direction = Direction::max;
    c.function = QueryFunction::rate;
    const BuiltQuery rate = build_batch_query(c);
    EXPECT_EQ(rate.transmit_promql, transmit_rate("kubernetes_node", R"(device="eth0")"));
    EXPECT_EQ(rate.transmit_untagged, "transmit_rate");
  }
}

TEST(BatchQueryTest, LabelModeSumsByNodeLabelAndAddsTheLinkParts) {
  QueryConfig c = base_config();
  c.basis = ScoreBasis::utilisation;
  const BuiltQuery q = build_batch_query(c);
  EXPECT_EQ(q.promql, std::string(kLabelScore) + " or " + tagged(kLabelRate, "rate"));
  // The link parts read the transmit counter in a request of its own.
  EXPECT_EQ(q.transmit_promql, transmit_rate("kubernetes_node", R"(device="eth0")"));
  EXPECT_EQ(q.transmit_untagged, "transmit_rate");
  EXPECT_EQ(q.node_label, "kubernetes_node");
  EXPECT_EQ(q.kind_label, "netscore_kind");
  EXPECT_FALSE(q.score_is_rate);
}

TEST(BatchQueryTest, UnameModeJoinsNodeUnameInfoAndGroupsByNodename) {
  QueryConfig c = base_config();
  c.mode = QueryMode::uname;
  c.basis = ScoreBasis::utilisation;
  const BuiltQuery q = build_batch_query(c);
  const std::string join = R"( * on(instance) group_left(nodename) (node_uname_info))";
  EXPECT_EQ(
      q.promql,
      R"(sum by (nodename) (sum_over_time(node_network_receive_bytes_total{device="eth0"}[5m]))" +
          join + ") or " +
          tagged(R"(sum by (nodename) (rate(node_network_receive_bytes_total{device="eth0"}[5m]))" +
                     join + ")",
                 "rate"));
  EXPECT_EQ(q.transmit_promql, transmit_rate("nodename", R"(device="eth0")", join));
  EXPECT_EQ(q.node_label, "nodename");
}

TEST(BatchQueryTest, CandidateNodeLabelsTakeTheFirstPresentPerSeries) {
  QueryConfig c = base_config();
  c.node_labels = {"kubernetes_node", "instance"};
  c.function = QueryFunction::rate;
  const BuiltQuery q = build_batch_query(c);
  // The last candidate is applied first, so the first one present wins.
  const std::string score =
      R"x(sum by (netscore_node) (label_replace(label_replace(rate(node_network_receive_bytes_total{device="eth0"}[5m]),)x"
      R"x( "netscore_node", "$1", "instance", "(.+)"), "netscore_node", "$1", "kubernetes_node", "(.+)")))x";
  EXPECT_EQ(q.promql.substr(0, q.promql.find(" or ")), score);
  EXPECT_EQ(q.node_label, "netscore_node");
  c.node_labels = {"kubernetes-node"};
  EXPECT_THROW(build_batch_query(c), QueryError);
}

TEST(BatchQueryTest, RateFunctionIsItsOwnRate) {
  QueryConfig c = base_config();
  c.interface = R"(eth\d+|ens.*)";
  c.interface_regex = true;
  c.function = QueryFunction::rate;
  c.time_range = *parse_prom_duration("1m30s");
  c.direction = Direction::max;
  const BuiltQuery q = build_batch_query(c);
  // No rate part: the score is the rate. The transmit rate still comes from its own part.
  EXPECT_EQ(
      q.promql,
      R"(sum by (kubernetes_node) (rate(node_network_receive_bytes_total{device=~"eth\\d+|ens.*"}[1m30s])))");
  EXPECT_EQ(
      q.transmit_promql,
      R"(sum by (kubernetes_node) (rate(node_network_transmit_bytes_total{device=~"eth\\d+|ens.*"}[1m30s])))");
  EXPECT_TRUE(q.score_is_rate);
  EXPECT_EQ(q.kind_label, "netscore_kind");
  c.function = QueryFunction::increase;
  EXPECT_TRUE(build_batch_query(c).promql.starts_with("sum by (kubernetes_node) (increase("));
}

TEST(BatchQueryTest, InterfaceWithQuoteAndNewlineIsEscaped) {
  QueryConfig c = base_config();
  c.interface = "e\"t\\h\n0";
  const std::string score =
      R"(sum by (kubernetes_node) (sum_over_time(node_network_receive_bytes_total{device="e\"t\\h\n0"}[5m])))";
  EXPECT_EQ(build_batch_query(c).promql.substr(0, score.size()), score);
}

TEST(BatchQueryTest, CustomTemplateSubstitutesEscapedPlaceholders) {
  QueryConfig c = base_config();
  c.mode = QueryMode::custom;
  c.interface = "a\"b";
  c.node_label = "node";
  c.basis = ScoreBasis::utilisation;
  c.custom_template =
      R"(max by ({node_label}) (rate(m{device="{interface}"}[{range}])) + {range_x})";
  const BuiltQuery q = build_batch_query(c);
  // The rate half is label mode's with NETSCORE_RECEIVE_METRIC: the template's own metric is
  // unknown.
  EXPECT_EQ(
      q.promql,
      R"(max by (node) (rate(m{device="a\"b"}[5m])) + {range_x} or )" +
          tagged(R"(sum by (node) (rate(node_network_receive_bytes_total{device="a\"b"}[5m])))",
                 "rate"));
  EXPECT_EQ(q.transmit_promql, transmit_rate("node", R"(device="a\"b")"));
  EXPECT_EQ(q.node_label, "node");
}

TEST(BatchQueryTest, RejectsBadNamesNamingTheVariable) {
  QueryConfig c = base_config();
  c.node_label = "kubernetes-node";
  try {
    build_batch_query(c);
    FAIL() << "expected QueryError";
  } catch (const QueryError& e) {
    EXPECT_NE(std::string(e.what()).find("NETSCORE_NODE_LABEL"), std::string::npos);
  }
  c = base_config();
  c.metric = "bad metric";
  EXPECT_THROW(build_batch_query(c), QueryError);
  c = base_config();
  c.mode = QueryMode::custom;
  EXPECT_THROW(build_batch_query(c), QueryError);
}

// The default scoring (rate, utilisation, max) once the layout check found one label and one
// series per node: each direction read once, no sum, no label chain, the score untagged.
TEST(ShapedBatchQueryTest, AResolvedLayoutReadPerSeriesReadsEachDirectionOnce) {
  QueryConfig c = base_config();
  c.function = QueryFunction::rate;
  c.basis = ScoreBasis::utilisation;
  c.direction = Direction::max;
  c.node_labels = {"kubernetes_node", "node", "nodename", "instance"};
  const BuiltQuery chain = build_batch_query(c);
  EXPECT_NE(chain.promql.find("netscore_node"), std::string::npos);
  const BuiltQuery q = build_batch_query(c, {.node_label = "instance", .per_series = true});
  EXPECT_EQ(q.promql, R"(rate(node_network_receive_bytes_total{device="eth0"}[5m]))");
  EXPECT_EQ(q.transmit_promql, R"(rate(node_network_transmit_bytes_total{device="eth0"}[5m]))");
  EXPECT_EQ(q.transmit_untagged, "transmit_rate");
  EXPECT_EQ(q.node_label, "instance");
  EXPECT_TRUE(q.score_is_rate);
  // Summed when a node may have several series, by the resolved label alone.
  const BuiltQuery summed = build_batch_query(c, {.node_label = "instance"});
  EXPECT_EQ(summed.promql,
            R"(sum by (instance) (rate(node_network_receive_bytes_total{device="eth0"}[5m])))");
  EXPECT_EQ(summed.promql.find("netscore_node"), std::string::npos);
}

TEST(ShapedBatchQueryTest, UnameModeStaysSummedByNodename) {
  QueryConfig c = base_config();
  c.mode = QueryMode::uname;
  EXPECT_EQ(build_batch_query(c, {.per_series = true}).promql, build_batch_query(c).promql);
}

TEST(ShapedBatchQueryTest, RecordingRulesAreOneSelectorToldApartByName) {
  QueryConfig c = base_config();
  c.function = QueryFunction::rate;
  c.basis = ScoreBasis::utilisation;
  c.direction = Direction::max;
  const QueryShape rules{.node_label = "",
                         .per_series = true,
                         .receive_rule = "instance:node_network_receive_bytes_physical:rate5m",
                         .transmit_rule = "instance:node_network_transmit_bytes_physical:rate5m"};
  const BuiltQuery q = build_batch_query(c, rules);
  EXPECT_EQ(q.promql, R"({__name__=~"instance:node_network_receive_bytes_physical:rate5m|)"
                      R"(instance:node_network_transmit_bytes_physical:rate5m"})");
  EXPECT_EQ(q.kind_label, "__name__");
  EXPECT_EQ(q.node_label, "kubernetes_node");
  EXPECT_TRUE(q.score_is_rate);
  ASSERT_EQ(q.kind_aliases.size(), 2U);
  EXPECT_EQ(q.kind_aliases[1].first, rules.transmit_rule);
  EXPECT_EQ(q.kind_aliases[1].second, kKindTransmitRate);
  QueryShape summed = rules;
  summed.per_series = false;
  EXPECT_TRUE(
      build_batch_query(c, summed).promql.starts_with("sum by (kubernetes_node, __name__) ("));
  // Receive alone needs no transmit rule.
  c.basis = ScoreBasis::raw;
  c.direction = Direction::receive;
  EXPECT_EQ(build_batch_query(c, rules).promql,
            R"({__name__=~"instance:node_network_receive_bytes_physical:rate5m"})");
}

TEST(SpeedQueryTest, CountsSumsAndFlagsTheSpeedsPerNode) {
  QueryConfig c = base_config();
  c.node_labels = {"kubernetes_node", "instance"};
  const std::string device = R"(device="eth0")";
  const BuiltQuery q = build_speed_query(c, {.node_label = "kubernetes_node"});
  EXPECT_EQ(
      q.promql,
      "count by (kubernetes_node) (node_network_speed_bytes{" + device + "}) or " +
          tagged("sum by (kubernetes_node) ((node_network_speed_bytes{" + device + "} > 0))",
                 "speed") +
          " or " +
          tagged("count by (kubernetes_node) ((node_network_speed_bytes{" + device + "} <= 0))",
                 "unusable_speed"));
  EXPECT_EQ(q.node_label, "kubernetes_node");
  EXPECT_NE(build_speed_query(c).promql.find("netscore_node"), std::string::npos);
}

TEST(DeviceMatcherTest, ALeadingBangSelectsEveryOtherDevice) {
  QueryConfig c = base_config();
  EXPECT_EQ(device_matcher(c), R"(device="eth0")");
  c.interface = "!lo";
  EXPECT_EQ(device_matcher(c), R"(device!="lo")");
  c.interface = "!lo|veth.+";
  c.interface_regex = true;
  EXPECT_EQ(device_matcher(c), R"(device!~"lo|veth.+")");
  c.interface = "eth.+";
  EXPECT_EQ(device_matcher(c), R"(device=~"eth.+")");
}

TEST(PerNodeQueryTest, MatchesTheGoPluginQueries) {
  QueryConfig c = base_config();
  EXPECT_EQ(
      build_per_node_query(c, "node-1"),
      R"(sum_over_time(node_network_receive_bytes_total{device="eth0",kubernetes_node="node-1"}[5m]))");
  c.mode = QueryMode::uname;
  EXPECT_EQ(build_per_node_query(c, "n\"1"),
            R"(sum_over_time(node_network_receive_bytes_total{device="eth0"}[5m]))"
            R"( * on(instance) group_left(nodename) (node_uname_info{nodename="n\"1"}))");
}

// The descheduler's utilisation, written out by hand: the layout's label, the speeds summed as
// the speed part sums them, the fallback only where no positive speed exists.
constexpr const char* kInstanceReceive =
    R"(sum by (instance) (rate(node_network_receive_bytes_total{device="eth0"}[5m])))";
constexpr const char* kInstanceSpeed =
    R"(sum by (instance) ((node_network_speed_bytes{device="eth0"} > 0)))";

QueryConfig utilisation_config(Direction direction) {
  QueryConfig c = base_config();
  c.function = QueryFunction::rate;
  c.node_labels = {"kubernetes_node", "node", "nodename", "instance"};
  c.basis = ScoreBasis::utilisation;
  c.direction = direction;
  return c;
}

TEST(UtilisationQueryTest, ReceiveOnTheLayoutsLabelIsTheClampedRatio) {
  const std::string q =
      build_utilisation_query(utilisation_config(Direction::receive), {.node_label = "instance"});
  EXPECT_EQ(q, "clamp(" + std::string(kInstanceReceive) + " / " + kInstanceSpeed + ", 0, 1)");
}

TEST(UtilisationQueryTest, MaxTakesTheBusierSideAndTheFallbackSpeedWhereNoneIsMeasured) {
  QueryConfig c = utilisation_config(Direction::max);
  c.fallback_speed = 125e6;
  const std::string receive = kInstanceReceive;
  const std::string transmit =
      R"(sum by (instance) (rate(node_network_transmit_bytes_total{device="eth0"}[5m])))";
  const auto ratio = [](const std::string& rate) {
    return rate + " / (" + kInstanceSpeed + " or (" + rate + " * 0 + 125000000))";
  };
  EXPECT_EQ(build_utilisation_query(c, {.node_label = "instance"}),
            "clamp(max by (instance) (" + tagged(ratio(receive), "rate") + " or " +
                tagged(ratio(transmit), "transmit_rate") + "), 0, 1)");
}

TEST(UtilisationQueryTest, TheLoadIsTheRatioUnclampedAndTheUtilisationClampsIt) {
  const QueryConfig c = utilisation_config(Direction::receive);
  const std::string ratio = std::string(kInstanceReceive) + " / " + kInstanceSpeed;
  EXPECT_EQ(build_link_load_query(c, {.node_label = "instance"}), ratio);
  EXPECT_EQ(build_utilisation_query(c, {.node_label = "instance"}), "clamp(" + ratio + ", 0, 1)");
}

TEST(UtilisationQueryTest, AnotherNodeLabelIsCopiedIntoInstance) {
  const std::string q = build_link_load_query(utilisation_config(Direction::transmit),
                                              {.node_label = "kubernetes_node"});
  EXPECT_EQ(
      q,
      R"(label_replace(sum by (kubernetes_node) (rate(node_network_transmit_bytes_total{device="eth0"}[5m])) / )"
      R"(sum by (kubernetes_node) ((node_network_speed_bytes{device="eth0"} > 0)), )"
      R"q("instance", "$1", "kubernetes_node", "(.+)"))q");
}

TEST(UtilisationQueryTest, UnameModeNamesTheNodeByNodename) {
  QueryConfig c = utilisation_config(Direction::receive);
  c.mode = QueryMode::uname;
  const std::string join = " * on(instance) group_left(nodename) (node_uname_info)";
  EXPECT_EQ(
      build_link_load_query(c),
      "label_replace(sum by (nodename) (rate(node_network_receive_bytes_total{device=\"eth0\"}[5m])" +
          join + ") / sum by (nodename) ((node_network_speed_bytes{device=\"eth0\"} > 0)" + join +
          "), \"instance\", \"$1\", \"nodename\", \"(.+)\")");
}

TEST(UtilisationQueryTest, AnInvalidMetricIsRefusedByName) {
  QueryConfig c = utilisation_config(Direction::receive);
  c.metric = "not a metric";
  EXPECT_THROW(
      {
        try {
          build_utilisation_query(c);
        } catch (const QueryError& e) {
          EXPECT_NE(std::string(e.what()).find("NETSCORE_RECEIVE_METRIC"), std::string::npos);
          throw;
        }
      },
      QueryError);
}

}  // namespace
}  // namespace netscore::collector
