#include "bench/closed_loop/processes/cadvisor_series.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/prometheus_text/exposition.h"

namespace netscore::sim {
namespace {

namespace text = prometheus_text;

const std::vector<std::string> kNodes = {"node-00", "node-01"};
const std::vector<double> kNodeReceive = {5e9, 7e9}, kNodeTransmit = {6e9, 8e9};
const std::vector<PodCounters> kPods = {
    {.ns = "ci", .name = "runner-abcde", .node = 1, .receive = 1234.4, .transmit = 99.6},
    {.ns = "default", .name = "web-0", .node = 0, .receive = 10, .transmit = 20},
};

std::vector<text::Sample> page(PodSeries series) {
  return text::parse(cadvisor_exposition(
      series, {.nodes = kNodes, .receive = kNodeReceive, .transmit = kNodeTransmit}, kPods));
}

// The labels every series of node `n`'s target carries, as kube-prometheus' kubelet job sets them.
text::Labels target(const std::string& node) {
  return {{"job", "kubelet"},
          {"metrics_path", "/metrics/cadvisor"},
          {"node", node},
          {"service", "kubelet"},
          {"endpoint", "https-metrics"}};
}

// The one series of `name` whose labels hold `matchers`; nullopt unless exactly one.
std::optional<text::Sample> only(const std::vector<text::Sample>& samples, const std::string& name,
                                 const text::Labels& matchers) {
  std::optional<text::Sample> found;
  for (const auto& sample : samples) {
    if (sample.name != name || !text::matches(sample.labels, matchers)) continue;
    if (found) return std::nullopt;
    found = sample;
  }
  return found;
}

TEST(CadvisorSeries, PodSandboxSeriesCarryTheLabelsAPerPodQuerySelectsOn) {
  const auto samples = page(PodSeries::cadvisor);
  text::Labels pod = target("node-01");
  pod.insert({{"namespace", "ci"},
              {"pod", "runner-abcde"},
              {"interface", "eth0"},
              {"container", ""},
              {"image", "registry.k8s.io/pause:3.9"},
              {"name", sandbox_id(kPods[0])},
              {"id", pod_cgroup_path(kPods[0])}});
  const auto receive = only(samples, "container_network_receive_bytes_total", pod);
  const auto transmit = only(samples, "container_network_transmit_bytes_total", pod);
  ASSERT_TRUE(receive && transmit);
  EXPECT_EQ(receive->value, 1234);  // integral bytes
  EXPECT_EQ(transmit->value, 100);
  EXPECT_TRUE(receive->labels.contains("instance"));
  const auto other = only(samples, "container_network_receive_bytes_total",
                          {{"namespace", "default"}, {"pod", "web-0"}, {"node", "node-00"}});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->value, 10);
}

TEST(CadvisorSeries, EachNodeHasRootCgroupSeriesWithItsTotalsAndEmptyPodLabels) {
  const auto samples = page(PodSeries::cadvisor);
  for (std::size_t n = 0; n < kNodes.size(); ++n) {
    text::Labels root = target(kNodes[n]);
    root.insert({{"id", "/"}, {"interface", "eth0"}, {"namespace", ""}, {"pod", ""}});
    const auto receive = only(samples, "container_network_receive_bytes_total", root);
    const auto transmit = only(samples, "container_network_transmit_bytes_total", root);
    ASSERT_TRUE(receive && transmit) << kNodes[n];
    EXPECT_EQ(receive->value, kNodeReceive[n]);
    EXPECT_EQ(transmit->value, kNodeTransmit[n]);
  }
  // Two nodes' roots and two pods' sandboxes per direction, nothing else.
  EXPECT_EQ(samples.size(), 8U);
}

TEST(CadvisorSeries, UnlabelledSandboxesAreToldApartByTheirCgroupPathOnly) {
  const auto samples = page(PodSeries::unlabelled);
  for (const auto& pod : kPods) {
    const auto receive = only(samples, "container_network_receive_bytes_total",
                              {{"id", pod_cgroup_path(pod)},
                               {"namespace", ""},
                               {"pod", ""},
                               {"name", ""},
                               {"image", ""},
                               {"interface", "eth0"}});
    ASSERT_TRUE(receive) << pod.name;
    EXPECT_EQ(receive->value, std::llround(pod.receive));
  }
  for (const auto& sample : samples) {
    EXPECT_EQ(sample.labels.at("pod"), "");
    EXPECT_EQ(sample.labels.at("namespace"), "");
  }
  EXPECT_EQ(samples.size(), 8U);
}

TEST(CadvisorSeries, NoneServesNothing) {
  EXPECT_TRUE(cadvisor_exposition(
                  PodSeries::none,
                  {.nodes = kNodes, .receive = kNodeReceive, .transmit = kNodeTransmit}, kPods)
                  .empty());
}

TEST(CadvisorSeries, SandboxNamesAreStablePerPodAndDistinctBetweenPods) {
  const PodCounters later{.ns = "ci", .name = "runner-abcde", .node = 1, .receive = 5e6};
  EXPECT_EQ(pod_cgroup_path(kPods[0]), pod_cgroup_path(later));
  EXPECT_NE(pod_cgroup_path(kPods[0]), pod_cgroup_path(kPods[1]));
  const std::string id = sandbox_id(kPods[0]);
  EXPECT_EQ(id.size(), 64U);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_TRUE(pod_cgroup_path(kPods[0]).starts_with("/kubepods/burstable/pod"));
  EXPECT_TRUE(pod_cgroup_path(kPods[0]).ends_with("/" + id));
}

}  // namespace
}  // namespace netscore::sim
