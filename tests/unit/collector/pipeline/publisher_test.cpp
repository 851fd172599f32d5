// The publisher owns the table and the status: snapshots from measurements, the status' refresh
// and watch fields, and what a failed or stopped measurement leaves alone.
#include "collector/pipeline/publisher.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/table/score_table_reader.h"
#include "tests/support/eventually.h"
#include "tests/support/table_name.h"

namespace netscore::collector {
namespace {

using testing::eventually;

constexpr std::int64_t kIntervalMs = 30000;

Measurement good(std::int64_t eval_time_ms, std::int64_t finished_mono_ns) {
  return {.ok = true,
          .eval_time_ms = eval_time_ms,
          .nodes = {.queried = true,
                    .answered = true,
                    .samples = {{.node = "b", .value = 3000}, {.node = "a", .value = 1000}},
                    .series = 3,
                    .skipped = 1},
          .timing = {.attempts = 1,
                     .started_wall_ms = 1000,
                     .finished_wall_ms = 1200,
                     .finished_mono_ns = finished_mono_ns,
                     .duration_us = 200000},
          .diagnosis = {.status = std::string()},
          .plan = {.asked_apart_total = 4, .failed_total = 1, .speeds_eval_time_ms = 41}};
}

Measurement failed(const std::string& error, std::int64_t finished_mono_ns,
                   std::optional<std::string> diagnosis = std::nullopt) {
  return {.error = error,
          .nodes = {.queried = true, .answered = true},
          .timing = {.attempts = 1, .finished_wall_ms = 5000, .finished_mono_ns = finished_mono_ns},
          .diagnosis = {.status = std::move(diagnosis)}};
}

class PublisherTest : public ::testing::Test {
 protected:
  PublisherTest() : name_("publisher-unit"), writer_({.name = name_, .capacity = 64}) {}

  Publisher::Options options() const {
    return {.refresh_interval_ms = kIntervalMs, .decay_tick = std::chrono::milliseconds(1000)};
  }
  std::vector<TableRow> rows(shm::SnapshotMeta& meta) const {
    ScoreTableReader reader({.name = name_});
    std::vector<TableRow> out;
    EXPECT_EQ(reader.read_all(out, meta), ReadStatus::ok);
    return out;
  }
  ReadStatus status(shm::CollectorStatus& out) const {
    ScoreTableReader reader({.name = name_});
    return reader.read_status(out);
  }

  // A publisher over the watched nodes a and b whose cluster publishes are `gap` apart, with no
  // decay publish in between, started and holding its first measurement.
  struct Gapped {
    Gapped(PublisherTest& test, std::chrono::milliseconds gap)
        : watcher({.kube = {.url = "http://127.0.0.1:1"}}, state),
          publisher(
              [&] {
                Publisher::Options o = test.options();
                o.coalesce = o.coalesce_max = gap;
                o.decay_tick = std::chrono::hours(1);
                return o;
              }(),
              test.writer_, Publisher::Cluster{state, watcher}) {
      state.replace_nodes({{.name = "a"}, {.name = "b"}});
      publisher.start();
      publisher.publish(good(42, 7000));
    }
    ~Gapped() { publisher.stop(); }
    ClusterState state;
    ClusterWatcher watcher;
    Publisher publisher;
  };

  testing::TableName name_;
  ScoreTableWriter writer_;
};

TEST_F(PublisherTest, AMeasurementBecomesASnapshotAndARefreshInTheStatus) {
  Publisher publisher(options(), writer_);
  publisher.publish(good(42, 7000));
  shm::SnapshotMeta meta{};
  const auto published = rows(meta);
  ASSERT_EQ(published.size(), 2U);
  EXPECT_EQ(published[0].name, "a");
  EXPECT_EQ(published[0].score.raw, 1000);
  EXPECT_EQ(published[0].score.node_score, 67);  // 100 - 1000*100/3000
  EXPECT_EQ(published[1].score.node_score, 0);
  EXPECT_EQ(meta.eval_time_ms, 42);
  EXPECT_EQ(meta.publish_id, 1U);
  EXPECT_EQ(meta.flags, 0U);
  EXPECT_EQ(publisher.publishes(), 1U);

  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.writer_pid, getpid());
  EXPECT_EQ(s.refresh_interval_ms, kIntervalMs);
  EXPECT_EQ(s.refreshes_total, 1U);
  EXPECT_EQ(s.consecutive_failures, 0U);
  EXPECT_EQ(s.failures_total, 0U);
  EXPECT_EQ(s.refresh_started_wall_ms, 1000);
  EXPECT_EQ(s.refresh_finished_wall_ms, 1200);
  EXPECT_EQ(s.last_success_wall_ms, 1200);
  EXPECT_EQ(s.heartbeat_mono_ns, 7000);
  EXPECT_EQ(s.last_success_mono_ns, 7000);
  EXPECT_EQ(s.query_duration_us, 200000);
  EXPECT_EQ(s.series_count, 3U);
  EXPECT_EQ(s.skipped_series, 1U);
  EXPECT_EQ(s.side_requests_total, 4U);
  EXPECT_EQ(s.side_requests_failed_total, 1U);
  EXPECT_EQ(s.link_speeds_eval_wall_ms, 41);
  EXPECT_STREQ(s.last_error, "");
  // No cluster: the watch fields stay as a collector without a watcher leaves them.
  EXPECT_EQ(s.watch_state, static_cast<std::uint32_t>(shm::WatchState::off));
  EXPECT_EQ(s.watch_nodes, 0U);
  EXPECT_EQ(s.watch_pods, 0U);
}

TEST_F(PublisherTest, AFailedMeasurementKeepsTheLastSnapshotAndRecordsWhy) {
  Publisher publisher(options(), writer_);
  publisher.publish(good(42, 7000));
  publisher.publish(failed("http status 500", 9000));
  publisher.publish(failed("http status 502", 9500));
  shm::SnapshotMeta meta{};
  const auto kept = rows(meta);
  EXPECT_EQ(meta.publish_id, 1U);
  EXPECT_EQ(meta.eval_time_ms, 42);
  ASSERT_EQ(kept.size(), 2U);
  EXPECT_EQ(kept[1].score.raw, 3000);
  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.refreshes_total, 3U);
  EXPECT_EQ(s.consecutive_failures, 2U);
  EXPECT_EQ(s.failures_total, 2U);
  EXPECT_STREQ(s.last_error, "http status 502");
  EXPECT_EQ(s.heartbeat_mono_ns, 9500);
  EXPECT_EQ(s.last_success_mono_ns, 7000);
  EXPECT_EQ(s.series_count, 3U) << "the counts are the last good answer's";

  publisher.publish(good(43, 12000));
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.consecutive_failures, 0U);
  EXPECT_EQ(s.failures_total, 2U);
  EXPECT_STREQ(s.last_error, "");
  rows(meta);
  EXPECT_EQ(meta.publish_id, 2U);
}

TEST_F(PublisherTest, TheDiagnosisStaysUntilAMeasurementSaysSomethingNew) {
  Publisher publisher(options(), writer_);
  publisher.publish(failed("zero series in the answer", 1, "Try: NETSCORE_INTERFACE=ens5."));
  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_STREQ(s.diagnosis, "Try: NETSCORE_INTERFACE=ens5.");
  publisher.publish(failed("zero series in the answer", 2));
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_STREQ(s.diagnosis, "Try: NETSCORE_INTERFACE=ens5.");
  publisher.publish(good(1, 3));
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_STREQ(s.diagnosis, "");
}

TEST_F(PublisherTest, AStoppedMeasurementIsNotRecorded) {
  Publisher publisher(options(), writer_);
  publisher.publish({.stopped = true, .error = "stopped"});
  shm::CollectorStatus s{};
  EXPECT_EQ(status(s), ReadStatus::empty);
  EXPECT_EQ(publisher.publishes(), 0U);
}

TEST_F(PublisherTest, NothingIsPublishedBeforeTheFirstGoodMeasurement) {
  Publisher publisher(options(), writer_);
  publisher.publish(failed("http status 500", 1));
  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.consecutive_failures, 1U);
  EXPECT_EQ(publisher.publishes(), 0U);
}

// A cluster whose watcher never started: not synced, so the snapshot is the measurement, and
// the status carries the state's counts.
TEST_F(PublisherTest, WithAClusterTheStatusCarriesItsCountsAndChangesRepublish) {
  ClusterState state;
  state.replace_nodes({{.name = "a"}, {.name = "b"}, {.name = "c"}});
  state.upsert_pod({.uid = "p1", .node = "a"}, 1000);
  ClusterWatcher watcher({.kube = {.url = "http://127.0.0.1:1"}}, state);
  Publisher publisher(options(), writer_, Publisher::Cluster{state, watcher});
  publisher.start();
  publisher.publish(good(42, 7000));
  shm::SnapshotMeta meta{};
  ASSERT_EQ(rows(meta).size(), 2U) << "not synced: no watched node is added";
  EXPECT_EQ(meta.flags, 0U);
  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.watch_state, static_cast<std::uint32_t>(watcher.status().state));
  EXPECT_NE(s.watch_state, static_cast<std::uint32_t>(shm::WatchState::synced));
  EXPECT_EQ(s.watch_nodes, 3U);
  EXPECT_EQ(s.watch_pods, 1U);
  EXPECT_EQ(s.refreshes_total, 1U);

  // A change is published again from the last measurement, by the publisher's own thread.
  state.upsert_pod({.uid = "p2", .node = "b"}, 2000);
  publisher.cluster_changed();
  ASSERT_TRUE(eventually([&] { return (rows(meta), meta.publish_id == 2); }));
  EXPECT_EQ(meta.eval_time_ms, 42);
  ASSERT_TRUE(eventually([&] { return status(s) == ReadStatus::ok && s.watch_pods == 2; }));
  EXPECT_EQ(s.refreshes_total, 1U) << "a cluster change is no refresh";
  publisher.stop();
}

// The rebalance labeler's counts reach the status when a measurement is published.
TEST_F(PublisherTest, TheRebalanceCountsReachTheStatus) {
  ClusterState state;
  ClusterWatcher watcher({.kube = {.url = "http://127.0.0.1:1"}}, state);
  RebalanceStatus rebalance;
  rebalance.nominees = 2;
  rebalance.patches_total = 5;
  rebalance.patch_failures_total = 1;
  Publisher publisher(options(), writer_, Publisher::Cluster{state, watcher, &rebalance});
  publisher.publish(good(42, 7000));
  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.rebalance_nominees, 2U);
  EXPECT_EQ(s.rebalance_patches_total, 5U);
  EXPECT_EQ(s.rebalance_patch_failures_total, 1U);
}

// Each refresh's reading of the descheduler's utilisation reaches the labeler, a failed one as
// none.
TEST_F(PublisherTest, TheRebalanceReadingReachesTheLabeler) {
  ClusterState state;
  ClusterWatcher watcher({.kube = {.url = "http://127.0.0.1:1"}}, state);
  RebalanceStatus rebalance;
  Publisher publisher(options(), writer_, Publisher::Cluster{state, watcher, &rebalance});
  Measurement m = good(42, 7000);
  m.rebalance.utilisation = std::make_shared<const model::LinkLoads>(
      model::LinkLoads{.by_node = {{"node-a", 0.25}}, .direction = model::Direction::transmit});
  publisher.publish(m);
  ASSERT_NE(rebalance.utilisation(), nullptr);
  EXPECT_EQ(rebalance.utilisation()->by_node, (model::NodeUtilisation{{"node-a", 0.25}}));
  EXPECT_EQ(rebalance.utilisation()->direction, model::Direction::transmit);
  m.rebalance.utilisation = nullptr;
  m.rebalance.error = "HTTP 503";
  publisher.publish(m);
  EXPECT_EQ(rebalance.utilisation(), nullptr);
}

// The labeler's thread reads each reading whole while refreshes hand over new ones: every node of
// one reading has the same value, which a torn or shared reading would break.
TEST_F(PublisherTest, TheLabelerReadsEachRebalanceReadingWhole) {
  ClusterState state;
  ClusterWatcher watcher({.kube = {.url = "http://127.0.0.1:1"}}, state);
  RebalanceStatus rebalance;
  Publisher publisher(options(), writer_, Publisher::Cluster{state, watcher, &rebalance});
  constexpr int kReadings = 2000;
  std::atomic<bool> done{false};
  std::jthread labeler([&] {
    int read = 0;
    while (!done || read == 0) {
      const auto u = rebalance.utilisation();
      if (!u) continue;
      ++read;
      ASSERT_EQ(u->by_node.size(), 3U);
      ASSERT_EQ(u->by_node.at("a"), u->by_node.at("b"));
      ASSERT_EQ(u->by_node.at("b"), u->by_node.at("c"));
    }
  });
  Measurement m = good(42, 7000);
  for (int i = 1; i <= kReadings; ++i) {
    const double value = i / static_cast<double>(kReadings);
    m.rebalance.utilisation = std::make_shared<const model::LinkLoads>(
        model::LinkLoads{.by_node = {{"a", value}, {"b", value}, {"c", value}}});
    publisher.publish(m);
  }
  done = true;
  labeler.join();
  EXPECT_EQ(rebalance.utilisation()->by_node.at("a"), 1.0);
}

TEST(PublisherGap, GrowsWithThePublishCostWithinItsBounds) {
  const Publisher::Options options{.coalesce = std::chrono::milliseconds(5),
                                   .cluster_busy_share = 0.1,
                                   .coalesce_max = std::chrono::milliseconds(100)};
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  // A small table: the floor, as before the gap grew.
  EXPECT_EQ(Publisher::cluster_publish_gap(microseconds(200), options), milliseconds(5));
  // 3 ms (5,000 nodes): ten times that, so publishes take a tenth of a core.
  EXPECT_EQ(Publisher::cluster_publish_gap(milliseconds(3), options), milliseconds(30));
  // However slow: within the spread window's margin.
  EXPECT_EQ(Publisher::cluster_publish_gap(milliseconds(50), options), milliseconds(100));
}

// The traffic per pod's state and counts, as the reads hand them (PodTrafficReader::reads).
TEST_F(PublisherTest, ThePodTrafficReadsAreRecorded) {
  ClusterState state;
  state.upsert_pod({.uid = "w", .node = "a", .name = "shop/web-1"}, 0);
  state.upsert_pod({.uid = "h", .node = "a", .name = "ops/agent", .host_network = true}, 0);
  ClusterWatcher watcher({.kube = {.url = "http://127.0.0.1:1"}}, state);
  Publisher publisher(options(), writer_, Publisher::Cluster{state, watcher});
  Measurement m = good(42, 7000);
  auto traffic =
      std::make_shared<PodTraffic>(PodTraffic{.checked = true, .in_use = true, .eval_time_ms = 40});
  traffic->pods["shop/web-1"] = {.receive = 10, .receive_valid = true};
  traffic->pods["ops/agent"] = {.receive = 1e6, .receive_valid = true};
  m.pod_traffic = {.every_pod = traffic, .state = shm::PodTrafficState::in_use, .watched = 1};
  publisher.publish(m);
  shm::CollectorStatus s{};
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.pod_traffic_state, static_cast<std::uint32_t>(shm::PodTrafficState::in_use));
  EXPECT_EQ(s.pod_traffic_pods, 2U);
  EXPECT_EQ(s.pod_traffic_watched, 1U);
  EXPECT_EQ(s.pod_traffic_eval_wall_ms, 40);
  EXPECT_EQ(s.pod_traffic_recent_pods, 0U);
  EXPECT_EQ(s.pod_traffic_recent_eval_wall_ms, 0);
  // A recent read since: the pods it prices and its time.
  auto recent = std::make_shared<RecentPodTraffic>(RecentPodTraffic{.eval_time_ms = 45});
  recent->pods["shop/web-2"] = {.rates = {.receive = 5, .receive_valid = true}, .eval_time_ms = 45};
  m.pod_traffic.recent = recent;
  publisher.publish(m);
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.pod_traffic_recent_pods, 1U);
  EXPECT_EQ(s.pod_traffic_recent_eval_wall_ms, 45);
  m.pod_traffic.recent = nullptr;
  // Without pod labels: the state says so and nothing is counted.
  m.pod_traffic = {.every_pod = std::make_shared<PodTraffic>(PodTraffic{.checked = true}),
                   .state = shm::PodTrafficState::absent};
  publisher.publish(m);
  ASSERT_EQ(status(s), ReadStatus::ok);
  EXPECT_EQ(s.pod_traffic_state, static_cast<std::uint32_t>(shm::PodTrafficState::absent));
  EXPECT_EQ(s.pod_traffic_pods, 0U);
  EXPECT_EQ(s.pod_traffic_watched, 0U);
}

TEST_F(PublisherTest, ABurstOfChangesIsPublishedOnceAfterTheGapWithTheLastState) {
  // A gap no burst below outlasts.
  Gapped gapped(*this, std::chrono::seconds(2));
  ClusterState& state = gapped.state;
  Publisher& publisher = gapped.publisher;
  state.upsert_pod({.uid = "p0", .node = "a"}, 1000);
  publisher.cluster_changed();
  ASSERT_TRUE(eventually([&] { return publisher.publishes() == 2; })) << "the leading edge";

  for (int i = 1; i <= 10; ++i) {
    state.upsert_pod({.uid = "p" + std::to_string(i), .node = "b"}, 1000 + i);
    publisher.cluster_changed();
  }
  shm::CollectorStatus s{};
  ASSERT_TRUE(eventually([&] { return status(s) == ReadStatus::ok && s.watch_pods == 11; },
                         std::chrono::seconds(10)))
      << "the trailing publish carries the last change";
  EXPECT_EQ(publisher.publishes(), 3U) << "ten changes within the gap, one publish";
}

// A change within the gap waits for the gap's end, not for the loop's next deadline (the decay
// tick or its one-second cap).
TEST_F(PublisherTest, AChangeWithinTheGapIsPublishedWhenTheGapEnds) {
  Gapped gapped(*this, std::chrono::milliseconds(300));
  ClusterState& state = gapped.state;
  Publisher& publisher = gapped.publisher;
  state.upsert_pod({.uid = "p0", .node = "a"}, 1000);
  publisher.cluster_changed();
  ASSERT_TRUE(eventually([&] { return publisher.publishes() == 2; })) << "the leading edge";

  state.upsert_pod({.uid = "p1", .node = "a"}, 1001);
  const auto changed = std::chrono::steady_clock::now();
  publisher.cluster_changed();
  ASSERT_TRUE(eventually([&] { return publisher.publishes() == 3; }));
  EXPECT_LT(std::chrono::steady_clock::now() - changed, std::chrono::milliseconds(800))
      << "a 300 ms gap, not the one-second cap";
}

// The watch wakes the publisher only for the first change after a publish; changes from two
// threads racing the publishes must still each reach a publish by the end of the gap after them,
// never wait for the loop's one-second cap.
TEST_F(PublisherTest, ChangesRacingThePublishesAreEachPublishedAfterTheGap) {
  Gapped gapped(*this, std::chrono::milliseconds(20));
  ClusterState& state = gapped.state;
  Publisher& publisher = gapped.publisher;
  constexpr int kRounds = 20;
  constexpr int kPerThread = 50;
  int pods = 0;
  for (int round = 0; round < kRounds; ++round) {
    const auto burst = [&](const std::string& node, int first) {
      for (int i = first; i < first + kPerThread; ++i) {
        state.upsert_pod({.uid = "p" + std::to_string(i), .node = node}, 1000 + i);
        publisher.cluster_changed();
      }
    };
    std::thread other(burst, "b", pods + kPerThread);
    burst("a", pods);
    other.join();
    pods += 2 * kPerThread;
    const auto changed = std::chrono::steady_clock::now();
    shm::CollectorStatus s{};
    ASSERT_TRUE(eventually([&] {
      return status(s) == ReadStatus::ok && s.watch_pods == static_cast<std::uint32_t>(pods);
    })) << "round "
        << round;
    EXPECT_LT(std::chrono::steady_clock::now() - changed, std::chrono::milliseconds(800))
        << "round " << round << ": a 20 ms gap, not the one-second cap";
  }
}

}  // namespace
}  // namespace netscore::collector
