// The traffic per pod against a real Prometheus serving cAdvisor-shaped series, as kubelet's
// /metrics/cadvisor exposes them and kube-prometheus scrapes them (job kubelet): pod sandboxes
// (container="", namespace, pod, one series per interface), an application container, the root
// cgroup's per-host-interface series (id="/", no pod labels), and a runtime's series without pod
// labels. A second Prometheus has only unlabelled series: the detection finds none and nothing is
// read. Expected rates come from the written data: counters growing linearly, sampled every 15 s.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/pipeline/check.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/pod_traffic.h"
#include "collector/prometheus/prometheus_api.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/curl_environment.h"
#include "tests/support/prometheus_process.h"

namespace netscore::testing {
namespace {

constexpr std::int64_t kStepMs = 15'000;
constexpr int kSamples = 240;  // an hour

struct CadvisorSeries {
  std::string labels;  // without the metric name's braces
  double receive;      // bytes/s
  double transmit;
};

const std::string kSandbox = R"(job="kubelet",metrics_path="/metrics/cadvisor",container="",)";

// Two interfaces of a multi-homed pod, its loopback, an application container's series, a second
// pod, a host-network pod (its series are the node's), the root cgroup's, and a series of a
// runtime that fills no pod labels.
std::vector<CadvisorSeries> labelled_series() {
  return {
      {kSandbox + R"(namespace="shop",pod="web-1",interface="eth0",id="/kubepods/pod1/abc")", 1000,
       500},
      {kSandbox + R"(namespace="shop",pod="web-1",interface="net1",id="/kubepods/pod1/abc")", 200,
       100},
      {kSandbox + R"(namespace="shop",pod="web-1",interface="lo",id="/kubepods/pod1/abc")", 9e5,
       9e5},
      {R"(job="kubelet",container="app",namespace="shop",pod="web-1",interface="eth0")", 7e4, 7e4},
      {kSandbox + R"(namespace="kube-system",pod="dns-0",interface="eth0",id="/kubepods/pod2/d")",
       100, 50},
      {kSandbox +
           R"(namespace="kube-system",pod="node-exporter-x",interface="ens5",id="/kubepods/p3/e")",
       5e6, 4e6},
      {R"(job="kubelet",id="/",interface="ens5")", 5e6, 4e6},
      {kSandbox + R"(id="/system.slice/containerd.service/kubepods-pod4",interface="eth0")", 3000,
       3000},
  };
}

std::vector<CadvisorSeries> unlabelled_series() {
  return {
      {kSandbox + R"(id="/kubepods/pod1/abc",interface="eth0")", 1000, 500},
      {R"(job="kubelet",id="/",interface="ens5")", 5e6, 4e6},
  };
}

// Counters from start_ms, kSamples samples kStepMs apart, in OpenMetrics for promtool.
std::string write_cadvisor(const std::string& dir, const std::vector<CadvisorSeries>& series,
                           std::int64_t start_ms) {
  const std::string file = dir + "/cadvisor.om";
  std::ofstream out(file);
  for (const bool receive : {true, false}) {
    const std::string family =
        receive ? "container_network_receive_bytes" : "container_network_transmit_bytes";
    out << "# HELP " << family << " Cumulative count of bytes.\n# TYPE " << family << " counter\n";
    for (const auto& s : series) {
      for (int i = 0; i < kSamples; ++i) {
        const std::int64_t t_ms = start_ms + i * kStepMs;
        char line[64];
        std::snprintf(line, sizeof line, " %.17g %lld\n",
                      1e6 + (receive ? s.receive : s.transmit) * static_cast<double>(i) * 15,
                      static_cast<long long>(t_ms / 1000));
        out << family << "_total{" << s.labels << "}" << line;
      }
    }
  }
  out << "# EOF\n";
  return file;
}

class PodTrafficIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Aligned to the step, starting 40 minutes ago: the evaluation time lies well inside.
    start_ms_ = (std::time(nullptr) / 15 * 15 - 40 * 60) * 1000;
    labelled_dir_ = make_temp_dir("pod-traffic-labelled");
    unlabelled_dir_ = make_temp_dir("pod-traffic-unlabelled");
    labelled_ = std::make_unique<PrometheusProcess>(
        write_cadvisor(labelled_dir_, labelled_series(), start_ms_));
    unlabelled_ = std::make_unique<PrometheusProcess>(
        write_cadvisor(unlabelled_dir_, unlabelled_series(), start_ms_));
  }
  static void TearDownTestSuite() {
    labelled_.reset();
    unlabelled_.reset();
    for (const auto& dir : {labelled_dir_, unlabelled_dir_}) {
      std::remove((dir + "/cadvisor.om").c_str());
      std::remove(dir.c_str());
    }
  }

  // 30 minutes after the first sample, on a sample: the 5m window holds 21 of them.
  static std::int64_t eval_ms() { return start_ms_ + 30 * 60 * 1000; }

  static Config config_for(const std::string& url) {
    Config config = collector_config(url);
    config.pod_traffic.enabled = true;
    return config;
  }

  // A reader of one Prometheus whose clock stands still: the first refresh asks what is due.
  struct Reading {
    explicit Reading(const std::string& url) : config(config_for(url)) {}
    Config config;
    collector::PrometheusClient client{{.prometheus = config.prometheus}};
    collector::PrometheusApi api{client, {}};
    collector::PodTrafficReader reader{config, [] { return std::int64_t{0}; }};
  };

  static inline std::int64_t start_ms_ = 0;
  static inline std::string labelled_dir_;
  static inline std::string unlabelled_dir_;
  static inline std::unique_ptr<PrometheusProcess> labelled_;
  static inline std::unique_ptr<PrometheusProcess> unlabelled_;
};

void expect_rate(const collector::PodTraffic& traffic, const std::string& pod, double receive,
                 double transmit) {
  SCOPED_TRACE(pod);
  ASSERT_TRUE(traffic.pods.contains(pod));
  const collector::PodRates& r = traffic.pods.at(pod);
  EXPECT_TRUE(r.receive_valid && r.transmit_valid);
  EXPECT_NEAR(r.receive, receive, receive * 1e-9);
  EXPECT_NEAR(r.transmit, transmit, transmit * 1e-9);
}

TEST_F(PodTrafficIntegrationTest, APodsTrafficIsItsSandboxesInterfacesButTheLoopback) {
  Reading r(labelled_->url());
  const auto traffic = r.reader.refresh(r.api, eval_ms());
  ASSERT_TRUE(traffic->checked) << traffic->error;
  EXPECT_TRUE(traffic->in_use);
  EXPECT_EQ(traffic->error, "");
  EXPECT_EQ(traffic->eval_time_ms, eval_ms());
  // Neither the root cgroup's nor the unlabelled series, nor the application container's.
  EXPECT_EQ(traffic->pods.size(), 3U);
  expect_rate(*traffic, "shop/web-1", 1200, 600);
  expect_rate(*traffic, "kube-system/dns-0", 100, 50);
  expect_rate(*traffic, "kube-system/node-exporter-x", 5e6, 4e6);
  EXPECT_EQ(r.reader.counts().detections, 1U);
  EXPECT_EQ(r.reader.counts().reads, 1U);
  EXPECT_EQ(r.reader.counts().failed, 0U);
}

TEST_F(PodTrafficIntegrationTest, TheJoinKeepsWatchedPodsOffTheHostNetwork) {
  Reading r(labelled_->url());
  collector::ClusterState state;
  state.upsert_pod({.uid = "1", .node = "node-a", .name = "shop/web-1"}, 0);
  state.upsert_pod(
      {.uid = "3", .node = "node-a", .name = "kube-system/node-exporter-x", .host_network = true},
      0);
  const collector::PodTrafficJoin join =
      collector::join_watched_pods(*r.reader.refresh(r.api, eval_ms()), state);
  ASSERT_EQ(join.pods.size(), 1U);
  EXPECT_EQ(join.pods[0].name, "shop/web-1");
  EXPECT_EQ(join.pods[0].node, "node-a");
  EXPECT_NEAR(join.pods[0].rates.receive, 1200, 1200 * 1e-9);
  EXPECT_EQ(join.unmatched, 2U) << "dns-0 is not watched, node-exporter-x is the node's";
}

TEST_F(PodTrafficIntegrationTest, WithoutPodLabelsNothingIsRead) {
  Reading r(unlabelled_->url());
  const auto traffic = r.reader.refresh(r.api, eval_ms());
  EXPECT_TRUE(traffic->checked) << traffic->error;
  EXPECT_FALSE(traffic->in_use);
  EXPECT_TRUE(traffic->pods.empty());
  EXPECT_EQ(r.reader.counts().reads, 0U);
  std::ostringstream out;
  collector::print_pod_traffic(collector::Measurement{.pod_traffic = traffic}, out);
  EXPECT_NE(out.str().find("no per-pod series"), std::string::npos) << out.str();
}

// The measurement carries the traffic, read at its own cadence on the measurement's clock.
TEST_F(PodTrafficIntegrationTest, EachMeasurementCarriesTheLatestRead) {
  const Config config = config_for(labelled_->url());
  collector::PrometheusClient client({config.prometheus});
  std::int64_t now_ms = 0;
  collector::Measurer measurer(config, client,
                               {.retries = 0, .clock = [&now_ms] { return now_ms; }});
  const collector::Measurement first = measurer.measure(eval_ms(), no_wait());
  ASSERT_TRUE(first.queried) << first.error;
  ASSERT_TRUE(first.pod_traffic);
  EXPECT_EQ(first.pod_traffic->pods.size(), 3U);
  now_ms += config.refresh_interval.value.count();
  const collector::Measurement second = measurer.measure(eval_ms() + kStepMs, no_wait());
  EXPECT_EQ(second.pod_traffic, first.pod_traffic) << "within the interval: the same read";
  now_ms += pod_traffic_interval(config).count();
  const collector::Measurement third = measurer.measure(eval_ms() + 5 * kStepMs, no_wait());
  ASSERT_TRUE(third.pod_traffic);
  EXPECT_EQ(third.pod_traffic->eval_time_ms, eval_ms() + 5 * kStepMs);
  EXPECT_EQ(measurer.pod_traffic_counts().reads, 2U);
  std::ostringstream out;
  collector::print_pod_traffic(third, out);
  EXPECT_NE(out.str().find("per-pod series in use, 3 pods read 0 ms before"), std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace netscore::testing
