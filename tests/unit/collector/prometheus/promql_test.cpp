#include "collector/prometheus/promql.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/unit/collector/prometheus/physical_interfaces_config.h"

namespace netscore::collector {
namespace {

TEST(LayoutQueryTest, CountsEachCandidateWhereTheHigherOnesAreAbsent) {
  const std::string q = build_layout_query(physical_interfaces_config());
  const std::string metrics = R"(node_network_receive_bytes_total{device!~"lo|veth.+")";
  EXPECT_EQ(q, R"(label_replace(count()" + metrics +
                   R"(,kubernetes_node!=""}), "netscore_label", "kubernetes_node", "", "") or )"
                   R"(label_replace(count()" +
                   metrics +
                   R"(,kubernetes_node="",instance!=""}), "netscore_label", "instance", "", ""))");
}

TEST(RuleCoverageQueryTest, AsksForSeriesOutsideTheRulesJob) {
  const RateRules rules{.receive = RateRule{"rx", "node-exporter"},
                        .transmit = RateRule{"tx", "node-exporter"}};
  EXPECT_EQ(
      build_rule_coverage_query(physical_interfaces_config(), rules),
      R"(count(node_network_receive_bytes_total{device!~"lo|veth.+",job!="node-exporter"}))"
      R"( or count(node_network_transmit_bytes_total{device!~"lo|veth.+",job!="node-exporter"}))");
  EXPECT_EQ(build_rule_coverage_query(physical_interfaces_config(),
                                      {.receive = RateRule{"r", ""}, .transmit = {}}),
            "");
}

TEST(DiagnosisQueriesTest, CountDevicesAndUnameNodesAndQuoteTheDevice) {
  QueryConfig c = physical_interfaces_config();
  EXPECT_EQ(build_devices_query(c.metric), "count by (device) (node_network_receive_bytes_total)");
  EXPECT_EQ(build_devices_query(c.metric, "{device=\"eth0\"}"),
            R"(count by (device) (node_network_receive_bytes_total{device="eth0"}))");
  EXPECT_EQ(build_uname_nodenames_query(), "count by (nodename) (node_uname_info)");
  EXPECT_EQ(build_diagnosis_selector(c, ""),
            R"(node_network_receive_bytes_total{device!~"lo|veth.+"})");
  EXPECT_EQ(build_diagnosis_selector(c, "en\"s1"),
            R"(node_network_receive_bytes_total{device="en\"s1"})");
  EXPECT_EQ(build_uname_join_query("m{device=\"eth0\"}"),
            R"(count by (nodename) (m{device="eth0"} * on(instance) group_left(nodename) )"
            R"(node_uname_info))");
}

// The pod sandbox's series (the pause container's, container=""), with pod labels, every
// interface but the loopback: the root cgroup's per-host-interface series have pod="".
TEST(PodTrafficQueriesTest, ReadThePodSandboxesSeriesWithPodLabelsButNotLoopback) {
  EXPECT_EQ(build_pod_series_query("container_network_receive_bytes_total"),
            R"(count(container_network_receive_bytes_total{container="",pod!="",)"
            R"(namespace!="",interface!="lo"}))");
  EXPECT_EQ(build_pod_traffic_query("container_network_transmit_bytes_total", "5m"),
            R"(sum by (namespace, pod) (rate(container_network_transmit_bytes_total{)"
            R"(container="",pod!="",namespace!="",interface!="lo"}[5m])))");
}

}  // namespace
}  // namespace netscore::collector
