// The traffic exporter's per-pod cAdvisor series as a real Prometheus (Debian's 2.42) stores them
// through the scrape configuration the harness writes: the labels a per-pod query selects on
// survive the scrape, and the counters grow by each pod's rates.
#include "bench/closed_loop/processes/traffic_exporter.h"

#include <curl/curl.h>

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "bench/closed_loop/processes/cadvisor_series.h"
#include "tests/support/curl_environment.h"
#include "tests/support/eventually.h"
#include "tests/support/http_client.h"

namespace netscore::sim {
namespace {

using Labels = std::map<std::string, std::string>;

struct StoredSeries {
  Labels labels;
  double value = 0;
};

// An instant query's vector; empty when Prometheus answers anything else.
std::vector<StoredSeries> instant_query(const std::string& url, const std::string& promql) {
  char* escaped = curl_easy_escape(nullptr, promql.c_str(), static_cast<int>(promql.size()));
  const auto reply = testing::http_request({.method = "POST",
                                            .url = url + "/api/v1/query",
                                            .body = std::string("query=") + escaped,
                                            .content_type = "application/x-www-form-urlencoded"});
  curl_free(escaped);
  std::vector<StoredSeries> out;
  rapidjson::Document doc;
  doc.Parse(reply.body.c_str());
  if (reply.status != 200 || !doc.IsObject() || !doc.HasMember("data")) return out;
  for (const auto& item : doc["data"]["result"].GetArray()) {
    StoredSeries series;
    for (const auto& label : item["metric"].GetObject())
      series.labels[label.name.GetString()] = label.value.GetString();
    series.value = std::stod(item["value"][1].GetString());
    out.push_back(std::move(series));
  }
  return out;
}

TrafficExporter two_node_exporter(PodSeries series) {
  return TrafficExporter({"node-00", "node-01"}, {{1e6, 1e6}, {5e9, 6e9}}, {{2e6, 2e6}, {7e9, 8e9}},
                         {0, 0}, series);
}

TEST(TrafficExporterIntegrationTest, PodSeriesKeepTheirLabelsAndGrowByThePodsRates) {
  auto exporter = two_node_exporter(PodSeries::cadvisor);
  exporter.add_running(
      1, {.ns = "ci", .name = "runner-a", .node = 1, .receive = 4e6, .transmit = 1e6});
  ScrapingPrometheus prometheus(exporter.target(), 0.5, PodSeries::cadvisor);
  const std::string pod_a =
      R"({namespace="ci",pod="runner-a",container="",interface="eth0",job="kubelet",)"
      R"(metrics_path="/metrics/cadvisor",node="node-01"})";
  // A counter growing linearly: once the window holds its samples, rate() is its slope but for
  // the scrapes' timing (before, Prometheus extrapolates from the series' first samples).
  std::vector<StoredSeries> rate;
  const bool measured = testing::eventually(
      [&] {
        rate = instant_query(prometheus.url(),
                             "rate(container_network_receive_bytes_total" + pod_a + "[3s])");
        return rate.size() == 1 && std::abs(rate[0].value - 4e6) < 4e6 * 0.1;
      },
      std::chrono::seconds(60));
  ASSERT_EQ(rate.size(), 1U);
  ASSERT_TRUE(measured) << rate[0].value;
  const PodCounters pod{.ns = "ci", .name = "runner-a"};
  EXPECT_EQ(rate[0].labels["id"], pod_cgroup_path(pod));
  const auto stored =
      instant_query(prometheus.url(), "container_network_transmit_bytes_total" + pod_a);
  ASSERT_EQ(stored.size(), 1U);
  EXPECT_EQ(stored[0].labels.at("name"), sandbox_id(pod));
  EXPECT_EQ(stored[0].labels.at("image"), "registry.k8s.io/pause:3.9");
  EXPECT_EQ(stored[0].labels.at("service"), "kubelet");
  EXPECT_TRUE(stored[0].labels.at("instance").ends_with(":10250"));

  // The root cgroups: one per node, without pod labels, the node's totals.
  const auto roots = instant_query(
      prometheus.url(), R"(container_network_receive_bytes_total{id="/",pod="",namespace=""})");
  ASSERT_EQ(roots.size(), 2U);
  for (const auto& root : roots) EXPECT_GE(root.value, 5e9);

  // A pod bound now counts from the next scrape of /metrics, its series from the scrape after.
  exporter.start_pod(2, {.ns = "ci", .name = "runner-b", .node = 0, .receive = 1e6});
  EXPECT_TRUE(testing::eventually(
      [&] {
        return instant_query(prometheus.url(),
                             R"(container_network_receive_bytes_total{pod="runner-b",)"
                             R"(node="node-00",namespace="ci"})")
                   .size() == 1;
      },
      std::chrono::seconds(30)));
  // The node series are job "traffic"'s, as before.
  EXPECT_EQ(
      instant_query(prometheus.url(), R"(node_network_receive_bytes_total{job="traffic"})").size(),
      2U);
}

TEST(TrafficExporterIntegrationTest, UnlabelledSandboxesAreStoredWithoutPodOrNamespace) {
  auto exporter = two_node_exporter(PodSeries::unlabelled);
  const PodCounters pod{.ns = "ci", .name = "runner-a"};
  exporter.add_running(1, {.ns = pod.ns, .name = pod.name, .node = 0, .receive = 1e6});
  ScrapingPrometheus prometheus(exporter.target(), 0.5, PodSeries::unlabelled);
  std::vector<StoredSeries> sandbox;
  ASSERT_TRUE(testing::eventually(
      [&] {
        sandbox = instant_query(prometheus.url(), R"(container_network_receive_bytes_total{id=")" +
                                                      pod_cgroup_path(pod) + R"("})");
        return sandbox.size() == 1;
      },
      std::chrono::seconds(60)));
  EXPECT_FALSE(sandbox[0].labels.contains("pod"));
  EXPECT_FALSE(sandbox[0].labels.contains("namespace"));
  EXPECT_EQ(sandbox[0].labels.at("job"), "kubelet");
  EXPECT_TRUE(
      instant_query(prometheus.url(), R"(container_network_receive_bytes_total{pod!=""})").empty());
}

TEST(TrafficExporterIntegrationTest, WithoutPodSeriesThereIsNoCadvisorPage) {
  auto exporter = two_node_exporter(PodSeries::none);
  exporter.add_running(1, {.ns = "ci", .name = "runner-a", .node = 0, .receive = 1e6});
  const std::string url = "http://" + exporter.target();
  EXPECT_EQ(testing::http_get(url + "/metrics/cadvisor").status, 404);
  const auto metrics = testing::http_get(url + "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.body.find("container_network"), std::string::npos);
}

}  // namespace
}  // namespace netscore::sim
