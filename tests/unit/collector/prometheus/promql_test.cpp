#include "collector/prometheus/promql.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
// interface but the loopback: the root cgroup's per-host-interface series have pod="". The read
// leaves the pod labels to the sum (without them, one series without labels, skipped): selecting
// pod!="" costs Prometheus a merge of every pod's series.
TEST(PodTrafficQueriesTest, ReadThePodSandboxesSeriesWithPodLabelsButNotLoopback) {
  EXPECT_EQ(build_pod_series_query("container_network_receive_bytes_total"),
            R"(count(container_network_receive_bytes_total{container="",pod!="",)"
            R"(namespace!="",interface!="lo"}))");
  EXPECT_EQ(build_pod_traffic_query("container_network_transmit_bytes_total", "5m"),
            R"(sum by (namespace, pod) (rate(container_network_transmit_bytes_total{)"
            R"(container="",interface!="lo"}[5m])))");
}

// The recent pods by name: two regex alternations, each name escaped (a pod name may hold dots),
// sorted and unique; the slope of the samples over the short range.
TEST(PodTrafficQueriesTest, RecentPodsAreNamedByEscapedAlternations) {
  const std::vector<std::string> pods{"shop/web.1", "kube-system/dns-0", "shop/dns-0"};
  EXPECT_EQ(build_recent_pod_traffic_query("container_network_receive_bytes_total", "1m", pods),
            R"(sum by (namespace, pod) (deriv(container_network_receive_bytes_total{)"
            R"(container="",interface!="lo",)"
            R"(namespace=~"kube-system|shop",pod=~"dns-0|web\\.1"}[1m])))");
  EXPECT_EQ(regex_escape(R"(a.b+c*d?e(f)g|h[i]j{k}l^m$n\o)"),
            R"(a\.b\+c\*d\?e\(f\)g\|h\[i\]j\{k\}l\^m\$n\\o)");
}

}  // namespace
}  // namespace netscore::collector
