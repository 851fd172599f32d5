#include "collector/prometheus/side_queries.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/collector/prometheus/physical_interfaces_config.h"

namespace netscore::collector {
namespace {

std::string rule(const std::string& name, const std::string& query) {
  return R"({"name":")" + name + R"(","query":")" + query + R"(","type":"recording"})";
}

std::vector<RecordingRule> listed(const std::string& body) {
  RulesAnswer answer = parse_recording_rules(body);
  EXPECT_EQ(answer.error, "");
  return answer.rules;
}

// node-exporter's mixin rules as Prometheus 2.42 lists them (matchers sorted, escaped quotes).
std::vector<RecordingRule> mixin_rules(const std::string& range = "5m") {
  return listed(
      R"({"status":"success","data":{"groups":[{"name":"node-exporter.rules","rules":[)" +
      rule(
          "instance:node_network_receive_bytes_excluding_lo:rate5m",
          R"(sum without (device) (rate(node_network_receive_bytes_total{device!=\"lo\",job=\"node-exporter\"}[5m])))") +
      "," +
      rule(
          "instance:node_network_receive_bytes_physical:rate5m",
          R"(sum without(device) (rate(node_network_receive_bytes_total{device!~\"lo|veth.+\",job=\"node-exporter\"}[)" +
              range + "]))") +
      "," +
      rule(
          "instance:node_network_transmit_bytes_physical:rate5m",
          R"(sum without (device) (rate(node_network_transmit_bytes_total{device!~\"lo|veth.+\",job=\"node-exporter\"}[)" +
              range + "]))") +
      R"(,{"name":"NodeDown","query":"up == 0","type":"alerting"}]}]}})");
}

TEST(LayoutQueryTest, OneCandidateWithSeriesIsTheLayout) {
  ParsedVector one;
  one.samples.push_back({.node = "instance", .value = 30});
  EXPECT_EQ(single_node_label(one), "instance");
  ParsedVector mixed = one;
  mixed.samples.push_back({.node = "kubernetes_node", .value = 2});
  EXPECT_EQ(single_node_label(mixed), std::nullopt);
  EXPECT_EQ(single_node_label(ParsedVector{}), std::nullopt);
  ParsedVector failed = one;
  failed.error = "prometheus error";
  EXPECT_EQ(single_node_label(failed), std::nullopt);
}

TEST(RateRulesTest, TheMixinsPhysicalRulesStandForEveryDeviceButLoAndVeth) {
  const RateRules rules = find_rate_rules(mixin_rules(), physical_interfaces_config());
  ASSERT_TRUE(rules.receive.has_value());
  EXPECT_EQ(rules.receive->name, "instance:node_network_receive_bytes_physical:rate5m");
  EXPECT_EQ(rules.receive->job, "node-exporter");
  ASSERT_TRUE(rules.transmit.has_value());
  EXPECT_EQ(rules.transmit->name, "instance:node_network_transmit_bytes_physical:rate5m");
}

// _excluding_lo sums veth devices too: a pod's traffic counted on its veth and again on the
// NIC. It is used only when the interface setting asks for exactly that sum.
TEST(RateRulesTest, ExcludingLoIsUsedOnlyForEveryDeviceButLo) {
  QueryConfig c = physical_interfaces_config();
  c.interface = "!lo";
  c.interface_regex = false;
  const RateRules rules = find_rate_rules(mixin_rules(), c);
  ASSERT_TRUE(rules.receive.has_value());
  EXPECT_EQ(rules.receive->name, "instance:node_network_receive_bytes_excluding_lo:rate5m");
  EXPECT_FALSE(rules.transmit.has_value());
  c.interface = "eth0";
  EXPECT_FALSE(find_rate_rules(mixin_rules(), c).receive.has_value());
}

TEST(RateRulesTest, AnotherWindowOrAnotherMatcherIsNotTheRate) {
  EXPECT_FALSE(
      find_rate_rules(mixin_rules("1m"), physical_interfaces_config()).receive.has_value());
  // 300s is 5m: the same window.
  EXPECT_TRUE(
      find_rate_rules(mixin_rules("300s"), physical_interfaces_config()).receive.has_value());
  const std::string clustered =
      R"({"status":"success","data":{"groups":[{"rules":[)" +
      rule(
          "r",
          R"(sum without (device) (rate(node_network_receive_bytes_total{cluster=\"a\",device!~\"lo|veth.+\"}[5m])))") +
      "," +
      rule(
          "s",
          R"(sum by (instance) (rate(node_network_receive_bytes_total{device!~\"lo|veth.+\"}[5m])))") +
      "]}]}}";
  EXPECT_FALSE(
      find_rate_rules(listed(clustered), physical_interfaces_config()).receive.has_value());
}

}  // namespace
}  // namespace netscore::collector
