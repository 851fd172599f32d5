// The traffic per pod against a real Prometheus serving cAdvisor-shaped series, as kubelet's
// /metrics/cadvisor exposes them and kube-prometheus scrapes them (job kubelet): pod sandboxes
// (container="", namespace, pod, one series per interface), an application container, the root
// cgroup's per-host-interface series (id="/", no pod labels), and a runtime's series without pod
// labels. A second Prometheus has only unlabelled series: the detection finds none and nothing is
// read. A third has pods started after the read of every pod, read by name at the next refreshes.
// Expected rates come from the written data: counters growing linearly, sampled every 15 s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/pipeline/check.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/pod_traffic.h"
#include "collector/pipeline/publisher.h"
#include "collector/pipeline/recent_pod_traffic.h"
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
  int first_sample = 0;  // a pod started later has no sample before this one
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
      for (int i = s.first_sample; i < kSamples; ++i) {
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

// The sample at the read of every pod, 30 minutes after the first.
constexpr int kFullReadSample = 120;

// web-1 from the start; web.2 (a name whose dot a regex matches with any character) and a pod on
// its node's network from the sample after the read of every pod on.
std::vector<CadvisorSeries> recent_series() {
  return {
      {kSandbox + R"(namespace="shop",pod="web-1",interface="eth0",id="/kubepods/pod1/abc")", 1000,
       500},
      {kSandbox + R"(namespace="shop",pod="web.2",interface="eth0",id="/kubepods/pod2/d")", 800, 80,
       kFullReadSample + 1},
      {kSandbox +
           R"(namespace="kube-system",pod="node-exporter-y",interface="ens5",id="/kubepods/p3/e")",
       5e6, 4e6, kFullReadSample + 1},
  };
}

class PodTrafficIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Aligned to the step, starting 40 minutes ago: the evaluation time lies well inside.
    start_ms_ = (std::time(nullptr) / 15 * 15 - 40 * 60) * 1000;
    labelled_dir_ = make_temp_dir("pod-traffic-labelled");
    unlabelled_dir_ = make_temp_dir("pod-traffic-unlabelled");
    recent_dir_ = make_temp_dir("pod-traffic-recent");
    labelled_ = std::make_unique<PrometheusProcess>(
        write_cadvisor(labelled_dir_, labelled_series(), start_ms_));
    recent_ = std::make_unique<PrometheusProcess>(
        write_cadvisor(recent_dir_, recent_series(), start_ms_));
    unlabelled_ = std::make_unique<PrometheusProcess>(
        write_cadvisor(unlabelled_dir_, unlabelled_series(), start_ms_));
  }
  static void TearDownTestSuite() {
    labelled_.reset();
    unlabelled_.reset();
    recent_.reset();
    for (const auto& dir : {labelled_dir_, unlabelled_dir_, recent_dir_}) {
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
  static inline std::string recent_dir_;
  static inline std::unique_ptr<PrometheusProcess> recent_;
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
  ASSERT_TRUE(first.nodes.queried) << first.error;
  ASSERT_TRUE(first.pod_traffic.every_pod);
  EXPECT_EQ(first.pod_traffic.every_pod->pods.size(), 3U);
  now_ms += config.refresh_interval.value.count();
  const collector::Measurement second = measurer.measure(eval_ms() + kStepMs, no_wait());
  EXPECT_EQ(second.pod_traffic.every_pod, first.pod_traffic.every_pod)
      << "within the interval: the same read";
  now_ms += pod_traffic_interval(config).count();
  const collector::Measurement third = measurer.measure(eval_ms() + 5 * kStepMs, no_wait());
  ASSERT_TRUE(third.pod_traffic.every_pod);
  EXPECT_EQ(third.pod_traffic.every_pod->eval_time_ms, eval_ms() + 5 * kStepMs);
  EXPECT_EQ(measurer.pod_traffic_counts().reads, 2U);
  std::ostringstream out;
  collector::print_pod_traffic(third, out);
  EXPECT_NE(out.str().find("per-pod series in use, 3 pods read 0 ms before"), std::string::npos)
      << out.str();
}

// A pod bound after the read of every pod is read by name at the next refreshes: from its second
// sample on, the ledger prices it by its own rate; the host-network pod is never asked.
TEST_F(PodTrafficIntegrationTest, APodBoundAfterTheFullReadIsPricedByItsOwnRateAtTheNextRefreshes) {
  const Config config = config_for(recent_->url());
  const std::int64_t full_read_ms = start_ms_ + kFullReadSample * kStepMs;
  const std::int64_t window_ms = config.query.time_range.value.count();
  const std::int64_t lag_ms = config.refresh_interval.value.count();
  collector::ClusterState state(lag_ms + window_ms);
  state.upsert_pod({.uid = "1", .node = "node-a", .name = "shop/web-1"}, full_read_ms - 1'800'000);
  collector::ClusterWatcher watcher({.kube = {.url = "http://127.0.0.1:1"}}, state);
  TableFixture table("pod-traffic-recent");
  collector::PrometheusClient client({config.prometheus});
  collector::Publisher publisher(collector::Publisher::options(config, client.redacted_url()),
                                 table.writer(), collector::Publisher::Cluster{state, watcher});
  std::int64_t now_ms = 0;
  collector::Measurer measurer(
      config, client, {.retries = 0, .clock = [&now_ms] { return now_ms; }, .cluster = &state});
  const collector::Measurement full = measurer.measure(full_read_ms, no_wait());
  ASSERT_TRUE(full.nodes.queried) << full.error;
  publisher.publish(full);
  ASSERT_EQ(full.pod_traffic.every_pod->eval_time_ms, full_read_ms)
      << full.pod_traffic.every_pod->error;
  EXPECT_EQ(full.pod_traffic.recent->asked, 0U) << "web-1 is priced by the read of every pod";
  EXPECT_EQ(measurer.pod_traffic_counts().recent_reads, 0U);

  // Bound 5 s after the read; its first sample 10 s later.
  state.upsert_pod({.uid = "2", .node = "node-b", .name = "shop/web.2"}, full_read_ms + 5'000);
  state.upsert_pod(
      {.uid = "3", .node = "node-b", .name = "kube-system/node-exporter-y", .host_network = true},
      full_read_ms + 5'000);
  now_ms += lag_ms;
  const collector::Measurement one_sample = measurer.measure(full_read_ms + kStepMs, no_wait());
  publisher.publish(one_sample);
  ASSERT_TRUE(one_sample.pod_traffic.recent);
  EXPECT_EQ(one_sample.pod_traffic.recent->error, "");
  EXPECT_EQ(one_sample.pod_traffic.recent->asked, 1U);
  EXPECT_EQ(one_sample.pod_traffic.recent->answered, 0U) << "one sample: no slope yet";
  EXPECT_NE(one_sample.pod_traffic.recent->receive_query.find(R"(pod=~"web\\.2")"),
            std::string::npos)
      << one_sample.pod_traffic.recent->receive_query;

  now_ms += lag_ms;
  const std::int64_t second_ms = full_read_ms + 2 * kStepMs;
  const collector::Measurement two_samples = measurer.measure(second_ms, no_wait());
  publisher.publish(two_samples);
  EXPECT_EQ(two_samples.pod_traffic.every_pod, full.pod_traffic.every_pod)
      << "the read of every pod is not due";
  const collector::RecentPodTraffic& recent = *two_samples.pod_traffic.recent;
  EXPECT_EQ(recent.asked, 1U);
  EXPECT_EQ(recent.answered, 1U);
  ASSERT_TRUE(recent.pods.contains("shop/web.2"));
  EXPECT_NEAR(recent.pods.at("shop/web.2").rates.receive, 800, 800 * 1e-9);
  EXPECT_NEAR(recent.pods.at("shop/web.2").rates.transmit, 80, 80 * 1e-9);
  EXPECT_EQ(measurer.pod_traffic_counts().recent_reads, 2U);

  // The ledger prices web.2 at its own 800 B/s, over the part of the window still to come: it
  // was placed 25 s before, 10 s after the lag, of a 300 s window.
  const std::vector<model::NodeLoad> loads =
      state.loads({.now_ms = second_ms, .lag_ms = lag_ms, .window_ms = window_ms});
  const auto node_b = std::find_if(loads.begin(), loads.end(),
                                   [](const model::NodeLoad& l) { return l.name == "node-b"; });
  ASSERT_NE(node_b, loads.end());
  EXPECT_EQ(node_b->priced_receive.measurement, 1U);
  EXPECT_EQ(node_b->priced_transmit.measurement, 1U);
  EXPECT_NEAR(node_b->pending_known, 800.0 * 29 / 30, 1e-6);
  EXPECT_NEAR(node_b->pending_transmit_known, 80.0 * 29 / 30, 1e-6);

  std::ostringstream out;
  collector::print_pod_traffic(two_samples, out);
  EXPECT_NE(out.str().find("1 asked, 1 answered, 0 left out"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace netscore::testing
