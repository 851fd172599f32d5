// PodTrafficReader against a fake Prometheus that answers each request by what it asks, on a
// clock the test drives; and the join of its traffic to the watched pods.
#include "collector/pipeline/pod_traffic.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "tests/support/curl_environment.h"
#include "tests/support/fake_http_server.h"
#include "tests/unit/collector/pipeline/pipeline_test_config.h"

namespace netscore::collector {
namespace {

using testing::CannedResponse;
using testing::FakeHttpServer;
using testing::SeenRequest;

constexpr std::int64_t kPodEvalMs = 1'700'000'000'000;

std::string pod_vector(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + series + "]}}";
}

std::string pod_series(const std::string& ns, const std::string& pod, const std::string& value) {
  return R"({"metric":{"namespace":")" + ns + R"(","pod":")" + pod + R"("},"value":[1,")" + value +
         R"("]})";
}

// What was asked, in order, and the answers per kind of request.
struct PodScript {
  std::vector<std::string> asked;
  std::string detection = R"({"metric":{},"value":[1,"12"]})";
  std::string receive =
      pod_series("shop", "web-1", "1000") + "," + pod_series("kube-system", "exporter", "5000000");
  std::string transmit = pod_series("shop", "web-1", "500");
  unsigned read_status = 200;

  CannedResponse answer(const SeenRequest& request) {
    const std::string& body = request.body;
    if (body.find("count%28") != std::string::npos) {
      asked.push_back("detection");
      return {200, pod_vector(detection), {}};
    }
    const bool receiving = body.find("receive") != std::string::npos;
    asked.push_back(receiving ? "receive" : "transmit");
    return {read_status, pod_vector(receiving ? receive : transmit), {}};
  }
};

class PodTrafficTest : public ::testing::Test {
 protected:
  PodTrafficTest() {
    server_.respond_by([this](const SeenRequest& r) { return script_.answer(r); });
  }

  PodTrafficReader reader() {
    return PodTrafficReader(config_, [this] { return now_ms_; });
  }

  FakeHttpServer server_;
  PodScript script_;
  Config config_ = pipeline_test_config(server_.url(), "0");
  PrometheusClient client_{{.prometheus = config_.prometheus}};
  PrometheusApi api_{client_, {}};
  std::int64_t now_ms_ = 0;
};

TEST_F(PodTrafficTest, DetectedSeriesAreReadOneRequestPerDirectionAtTheirOwnCadence) {
  PodTrafficReader r = reader();
  const auto first = r.refresh(api_, kPodEvalMs);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection", "receive", "transmit"}));
  EXPECT_TRUE(first->checked);
  EXPECT_TRUE(first->in_use);
  EXPECT_EQ(first->eval_time_ms, kPodEvalMs);
  ASSERT_EQ(first->pods.size(), 2U);
  const PodRates& web = first->pods.at("shop/web-1");
  EXPECT_EQ(web.receive, 1000);
  EXPECT_EQ(web.transmit, 500);
  EXPECT_TRUE(web.receive_valid && web.transmit_valid);
  const PodRates& exporter = first->pods.at("kube-system/exporter");
  EXPECT_TRUE(exporter.receive_valid);
  EXPECT_FALSE(exporter.transmit_valid) << "no transmit series";
  // Within the interval nothing is asked and the same value is handed out.
  now_ms_ = pod_traffic_interval(config_).count() - 1;
  EXPECT_EQ(r.refresh(api_, kPodEvalMs + 15'000), first);
  EXPECT_EQ(script_.asked.size(), 3U);
  now_ms_ = pod_traffic_interval(config_).count();
  const auto second = r.refresh(api_, kPodEvalMs + 60'000);
  EXPECT_EQ(second->eval_time_ms, kPodEvalMs + 60'000);
  EXPECT_EQ(script_.asked.size(), 5U) << "a read, no detection";
  EXPECT_EQ(r.counts().detections, 1U);
  EXPECT_EQ(r.counts().reads, 2U);
  // At the recheck the detection is asked again.
  now_ms_ = config_.recheck_interval.value.count();
  r.refresh(api_, kPodEvalMs);
  EXPECT_EQ(r.counts().detections, 2U);
}

// While no series has pod labels, the detection is asked at the read's cadence, not only at the
// recheck: kubelet's targets may not be scraped yet when the collector starts.
TEST_F(PodTrafficTest, WithoutPodLabelsOnlyTheDetectionIsAskedAtTheReadCadenceUntilItFindsThem) {
  script_.detection = "";
  PodTrafficReader r = reader();
  const auto absent = r.refresh(api_, kPodEvalMs);
  EXPECT_TRUE(absent->checked);
  EXPECT_FALSE(absent->in_use);
  EXPECT_TRUE(absent->pods.empty());
  const std::int64_t interval = pod_traffic_interval(config_).count();
  ASSERT_LT(interval, config_.recheck_interval.value.count());
  now_ms_ = interval - 1;
  r.refresh(api_, kPodEvalMs);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection"}));
  now_ms_ = interval;
  EXPECT_FALSE(r.refresh(api_, kPodEvalMs)->in_use);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection", "detection"}));
  script_.detection = R"({"metric":{},"value":[1,"3"]})";
  now_ms_ = 2 * interval;
  EXPECT_TRUE(r.refresh(api_, kPodEvalMs)->in_use);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection", "detection", "detection",
                                                     "receive", "transmit"}));
  // Found: the next detection waits for the recheck.
  now_ms_ = 3 * interval;
  r.refresh(api_, kPodEvalMs);
  EXPECT_EQ(r.counts().detections, 3U);
}

TEST_F(PodTrafficTest, AFailedReadKeepsTheLastTrafficAndIsAskedAgainAtTheNextRefresh) {
  PodTrafficReader r = reader();
  ASSERT_EQ(r.refresh(api_, kPodEvalMs)->pods.size(), 2U);
  script_.read_status = 503;
  now_ms_ = pod_traffic_interval(config_).count();
  const auto failed = r.refresh(api_, kPodEvalMs + 60'000);
  EXPECT_EQ(failed->eval_time_ms, kPodEvalMs);
  EXPECT_EQ(failed->pods.size(), 2U);
  EXPECT_EQ(failed->error, "read: http status 503");
  EXPECT_EQ(r.counts().failed, 1U);
  script_.read_status = 200;
  now_ms_ += 1;
  const auto recovered = r.refresh(api_, kPodEvalMs + 75'000);
  EXPECT_EQ(recovered->eval_time_ms, kPodEvalMs + 75'000);
  EXPECT_EQ(recovered->error, "");
}

TEST_F(PodTrafficTest, TheQueriesReadThePodSandboxesOverTheWindow) {
  const auto traffic = reader().traffic();
  EXPECT_FALSE(traffic->checked);
  EXPECT_EQ(traffic->receive_query,
            R"(sum by (namespace, pod) (rate(container_network_receive_bytes_total{)"
            R"(container="",pod!="",namespace!="",interface!="lo"}[5m])))");
  EXPECT_NE(traffic->transmit_query.find("container_network_transmit_bytes_total"),
            std::string::npos);
  EXPECT_TRUE(script_.asked.empty());
}

TEST(PodTrafficJoinTest, WatchedPodsOffTheHostNetworkAreJoinedByName) {
  ClusterState state;
  state.upsert_pod({.uid = "w", .node = "n1", .name = "shop/web-1"}, 0);
  state.upsert_pod({.uid = "h", .node = "n1", .name = "kube-system/exporter", .host_network = true},
                   0);
  PodTraffic traffic{.checked = true, .in_use = true, .eval_time_ms = kPodEvalMs};
  traffic.pods["shop/web-1"] = {.receive = 1000, .receive_valid = true};
  traffic.pods["kube-system/exporter"] = {.receive = 5e6, .receive_valid = true};
  traffic.pods["shop/gone"] = {.receive = 1, .receive_valid = true};
  const PodTrafficJoin join = join_watched_pods(traffic, state);
  EXPECT_EQ(join.eval_time_ms, kPodEvalMs);
  EXPECT_EQ(join.unmatched, 2U);
  ASSERT_EQ(join.pods.size(), 1U);
  EXPECT_EQ(join.pods[0].name, "shop/web-1");
  EXPECT_EQ(join.pods[0].node, "n1");
  EXPECT_EQ(join.pods[0].rates.receive, 1000);
}

TEST(PodTrafficStateTest, UncheckedAbsentOrInUse) {
  EXPECT_EQ(pod_traffic_state(PodTraffic{}), shm::PodTrafficState::unchecked);
  EXPECT_EQ(pod_traffic_state(PodTraffic{.checked = true}), shm::PodTrafficState::absent);
  EXPECT_EQ(pod_traffic_state(PodTraffic{.checked = true, .in_use = true}),
            shm::PodTrafficState::in_use);
}

}  // namespace
}  // namespace netscore::collector
