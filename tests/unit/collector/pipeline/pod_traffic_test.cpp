// PodTrafficReader against a fake Prometheus that answers each request by what it asks, on a
// clock the test drives; and the join of its traffic to the watched pods.
#include "collector/pipeline/pod_traffic.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/pipeline/recent_pod_traffic.h"
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
  // The recent pods' read, which names them: "web-2" matched by the alternations but not asked.
  std::string recent_receive = pod_series("shop", "web-9", "300") + "," +
                               pod_series("shop", "web-2", "7") + "," +
                               pod_series("kube-system", "web-9", "11");
  std::string recent_transmit = pod_series("shop", "web-9", "40");
  std::vector<std::string> recent_bodies;
  // What each kind of request takes on the test's clock, for the adaptive interval.
  std::atomic<std::int64_t>* clock = nullptr;
  std::int64_t full_read_ms = 0;
  std::int64_t recent_read_ms = 0;

  CannedResponse answer(const SeenRequest& request) {
    const std::string& body = request.body;
    if (body.find("count%28") != std::string::npos) {
      asked.push_back("detection");
      return {200, pod_vector(detection), {}};
    }
    const bool receiving = body.find("receive") != std::string::npos;
    if (body.find("deriv") != std::string::npos) {
      asked.push_back(receiving ? "recent receive" : "recent transmit");
      recent_bodies.push_back(body);
      if (clock != nullptr) *clock += recent_read_ms / 2;
      return {read_status, pod_vector(receiving ? recent_receive : recent_transmit), {}};
    }
    asked.push_back(receiving ? "receive" : "transmit");
    if (clock != nullptr) *clock += full_read_ms / 2;
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
  Config config_ = pipeline_test_config(server_.url(), 0);
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

// A refresh asks what its plan, decided at its start, found due; a detection that finds per-pod
// series anew has them read at once whatever the plan said of the read.
TEST_F(PodTrafficTest, TheRefreshFollowsThePlanDecidedAtItsStart) {
  PodTrafficReader r = reader();
  EXPECT_TRUE(r.due().detection);
  EXPECT_TRUE(r.due().read);
  r.refresh(api_, kPodEvalMs, 0, PodTrafficReader::Due{});
  EXPECT_TRUE(script_.asked.empty()) << "nothing planned, nothing asked";
  r.refresh(api_, kPodEvalMs, 0, PodTrafficReader::Due{.detection = true});
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection", "receive", "transmit"}));
  const PodTrafficReader::Due after = r.due();
  EXPECT_FALSE(after.detection);
  EXPECT_FALSE(after.read);
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
  const auto traffic = reader().reads().every_pod;
  EXPECT_FALSE(traffic->checked);
  EXPECT_EQ(traffic->receive_query,
            R"(sum by (namespace, pod) (rate(container_network_receive_bytes_total{)"
            R"(container="",interface!="lo"}[5m])))");
  EXPECT_NE(traffic->transmit_query.find("container_network_transmit_bytes_total"),
            std::string::npos);
  EXPECT_TRUE(script_.asked.empty());
}

// The clock of the recent pods' tests: Unix ms on the ledger's side, the reader's own monotonic
// clock, both where the test puts them.
class RecentPodTrafficReadTest : public PodTrafficTest {
 protected:
  RecentPodTrafficReadTest() {
    // web-1 placed long before the read of every pod, which prices it; web-9 after it.
    cluster_.upsert_pod({.uid = "1", .node = "n1", .name = "shop/web-1"}, kPodEvalMs - 3'600'000);
    cluster_.upsert_pod(
        {.uid = "h", .node = "n1", .name = "kube-system/host", .host_network = true},
        kPodEvalMs + 1'000);
  }

  PodTrafficReader recent_reader() {
    return PodTrafficReader(
        config_, [this] { return now_ms_; }, &cluster_);
  }

  // A read of every pod, then web-9 bound 5 s after it, and the next refresh.
  void bind_web9_after_the_full_read(PodTrafficReader& r) {
    r.refresh(api_, kPodEvalMs);
    cluster_.upsert_pod({.uid = "9", .node = "n2", .name = "shop/web-9"}, kPodEvalMs + 5'000);
    now_ms_ = 15'000;
    r.refresh(api_, kPodEvalMs + 15'000);
  }

  ClusterState cluster_{3'600'000};
};

TEST_F(RecentPodTrafficReadTest, NoRecentPodNoRequest) {
  PodTrafficReader r = recent_reader();
  r.refresh(api_, kPodEvalMs);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection", "receive", "transmit"}))
      << "the host-network pod is never asked";
  EXPECT_EQ(r.counts().recent_reads, 0U);
  EXPECT_EQ(r.reads().recent->asked, 0U);
  EXPECT_EQ(r.reads().recent->eval_time_ms, 0);
}

TEST_F(RecentPodTrafficReadTest, APodPlacedAfterTheFullReadIsReadByNameAtEveryRefresh) {
  PodTrafficReader r = recent_reader();
  bind_web9_after_the_full_read(r);
  EXPECT_EQ(script_.asked, (std::vector<std::string>{"detection", "receive", "transmit",
                                                     "recent receive", "recent transmit"}));
  const auto recent = r.reads().recent;
  EXPECT_EQ(recent->asked, 1U);
  EXPECT_EQ(recent->answered, 1U) << "shop/web-2 and kube-system/web-9 were not asked";
  EXPECT_EQ(recent->eval_time_ms, kPodEvalMs + 15'000);
  ASSERT_EQ(recent->pods.size(), 1U);
  const RecentPodRates& web9 = recent->pods.at("shop/web-9");
  EXPECT_EQ(web9.rates.receive, 300);
  EXPECT_EQ(web9.rates.transmit, 40);
  EXPECT_EQ(web9.eval_time_ms, kPodEvalMs + 15'000);
  ASSERT_EQ(script_.recent_bodies.size(), 2U);
  EXPECT_NE(script_.recent_bodies[0].find("web-9"), std::string::npos);
  EXPECT_EQ(script_.recent_bodies[0].find("web-1"), std::string::npos) << "priced by the full read";
  // Unanswered at the next refresh: its last answer stands.
  script_.recent_receive = "";
  script_.recent_transmit = "";
  now_ms_ = 30'000;
  r.refresh(api_, kPodEvalMs + 30'000);
  EXPECT_EQ(r.counts().recent_reads, 2U);
  EXPECT_EQ(r.reads().recent->answered, 0U);
  EXPECT_EQ(r.reads().recent->pods.at("shop/web-9").rates.receive, 300);
}

TEST_F(RecentPodTrafficReadTest, APodTheFullReadPricesIsNoLongerRecent) {
  PodTrafficReader r = recent_reader();
  bind_web9_after_the_full_read(r);
  ASSERT_EQ(r.reads().recent->pods.size(), 1U);
  // The next full read, late enough for the window to hold a part of web-9, answers it.
  script_.receive += "," + pod_series("shop", "web-9", "250");
  now_ms_ = r.reads().interval_ms;
  const std::int64_t later = kPodEvalMs + 5'000 + config_.query.time_range.value.count() / 2;
  r.refresh(api_, later);
  EXPECT_TRUE(r.reads().every_pod->pods.contains("shop/web-9"));
  EXPECT_TRUE(r.reads().recent->pods.empty());
  EXPECT_EQ(r.reads().recent->asked, 0U);
  EXPECT_EQ(r.counts().recent_reads, 1U);
}

// What a measurement carries: the state, and the watched pods of each read of every pod, joined
// once per read (the host-network pod and the unwatched exporter are not among them).
TEST_F(RecentPodTrafficReadTest, TheReadsCarryTheStateAndTheWatchedPodsJoinedOncePerRead) {
  EXPECT_EQ(reader().reads().state, shm::PodTrafficState::unchecked);
  EXPECT_EQ(reader().reads().recent, nullptr) << "without watched pods, no recent read";
  PodTrafficReader r = recent_reader();
  r.refresh(api_, kPodEvalMs);
  PodTrafficReads reads = r.reads();
  EXPECT_EQ(reads.state, shm::PodTrafficState::in_use);
  ASSERT_NE(reads.every_pod, nullptr);
  EXPECT_EQ(reads.every_pod->pods.size(), 2U);
  EXPECT_NE(reads.recent, nullptr);
  EXPECT_EQ(reads.watched, 1U);
  cluster_.upsert_pod({.uid = "e", .node = "n2", .name = "kube-system/exporter"}, kPodEvalMs);
  now_ms_ = 15'000;
  r.refresh(api_, kPodEvalMs + 15'000);
  EXPECT_EQ(r.reads().watched, 1U) << "no read of every pod since: the same join";
  now_ms_ = r.reads().interval_ms;
  r.refresh(api_, kPodEvalMs + r.reads().interval_ms);
  EXPECT_EQ(r.reads().watched, 2U);
}

TEST_F(RecentPodTrafficReadTest, AFailedRecentReadKeepsWhatWasReadAndFailsNothingElse) {
  PodTrafficReader r = recent_reader();
  bind_web9_after_the_full_read(r);
  script_.read_status = 503;
  now_ms_ = 30'000;
  r.refresh(api_, kPodEvalMs + 30'000);
  EXPECT_EQ(r.reads().recent->error, "recent read: http status 503");
  EXPECT_EQ(r.reads().recent->eval_time_ms, kPodEvalMs + 15'000);
  EXPECT_EQ(r.reads().recent->pods.at("shop/web-9").rates.receive, 300);
  EXPECT_EQ(r.counts().recent_failed, 1U);
  EXPECT_EQ(r.counts().failed, 0U);
  EXPECT_EQ(r.reads().every_pod->error, "");
}

TEST(FullReadRefreshesTest, TheFewestAtWhichThePerPodReadsCostNoMoreThanTheNodeRead) {
  EXPECT_EQ(full_read_refreshes({.node_ms = 100, .full_ms = 50, .recent_ms = 5}, 40), 4)
      << "never more often than every four refreshes";
  EXPECT_EQ(full_read_refreshes({.node_ms = 100, .full_ms = 900, .recent_ms = 10}, 40), 10);
  EXPECT_EQ(full_read_refreshes({.node_ms = 100, .full_ms = 901, .recent_ms = 10}, 40), 11);
  EXPECT_EQ(full_read_refreshes({.node_ms = 100, .full_ms = 9000, .recent_ms = 0}, 40), 40)
      << "at most the cap";
  EXPECT_EQ(full_read_refreshes({.node_ms = 10, .full_ms = 50, .recent_ms = 10}, 40), 20)
      << "the recent read costs the whole budget: a quarter of the node read is left, 50 / 2.5";
  EXPECT_EQ(full_read_refreshes({.node_ms = 10, .full_ms = 50, .recent_ms = 10}, 2), 4)
      << "a cap below the floor is the floor";
  EXPECT_EQ(full_read_refreshes({.node_ms = 0, .full_ms = 3, .recent_ms = 0}, 40), 4)
      << "a node read too fast for the clock";
}

// auto adapts the interval to what the reads took on the reader's clock, which the fake
// Prometheus advances as it answers: no sleep.
TEST(PodTrafficCadenceTest, AutoReadsEveryPodLessOftenWhenThatReadCostsMoreThanTheNodeRead) {
  FakeHttpServer server;
  PodScript script;
  std::atomic<std::int64_t> now_ms{0};
  script.clock = &now_ms;
  script.full_read_ms = 2'000;
  script.recent_read_ms = 20;
  server.respond_by([&script](const SeenRequest& request) { return script.answer(request); });
  const Config config = pipeline_test_config(server.url(), 0);
  PrometheusClient client({.prometheus = config.prometheus});
  PrometheusApi api(client, {});
  ClusterState cluster;
  cluster.upsert_pod({.uid = "9", .node = "n2", .name = "shop/web-9"}, kPodEvalMs);
  PodTrafficReader r(
      config, [&now_ms] { return now_ms.load(); }, &cluster);
  const std::int64_t refresh_ms = config.refresh_interval.value.count();
  // A node read of 100 ms and a full read of 2 s, no recent read yet: 2000 / 100.
  r.refresh(api, kPodEvalMs, 100);
  EXPECT_EQ(r.counts().reads, 1U);
  EXPECT_EQ(r.reads().interval_ms, 20 * refresh_ms);
  for (int i = 1; i < 20; ++i) {
    now_ms = i * refresh_ms;
    r.refresh(api, kPodEvalMs + i * refresh_ms, 100);
  }
  EXPECT_EQ(r.counts().reads, 1U) << "not before 20 refreshes";
  EXPECT_EQ(r.counts().recent_reads, 20U) << "the recent pod at every refresh";
  // The recent reads' 20 ms per refresh are spent from the budget too: 2000 / (100 - 20).
  now_ms = 20 * refresh_ms;
  r.refresh(api, kPodEvalMs + 20 * refresh_ms, 100);
  EXPECT_EQ(r.counts().reads, 2U);
  EXPECT_EQ(r.reads().interval_ms, 25 * refresh_ms);
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
