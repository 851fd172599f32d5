// The publisher thread: a binding reaches the shared-memory table through the watch, the
// correction can be switched off, and refreshes keep flowing while the cluster changes.
#include "collector/pipeline/publisher.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/model/domain.h"
#include "common/table/score_table_reader.h"
#include "tests/support/curl_environment.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_kube_apiserver.h"
#include "tests/support/table_name.h"

namespace netscore::collector {
namespace {

using testing::eventually;
using testing::FakeKubeApiServer;
namespace kube = testing::kube;

// What a refresh found: n1 and n2 at 1000 each.
Measurement measured(std::int64_t eval_time_ms) {
  return {.ok = true,
          .eval_time_ms = eval_time_ms,
          .nodes = {.queried = true,
                    .answered = true,
                    .samples = {{.node = "n1", .value = 1000}, {.node = "n2", .value = 1000}},
                    .series = 2}};
}

// Two nodes with one pod each, placed an hour ago (wholly in the window), and 1000 B/s each.
// Unless `start` is false, the publisher and the watcher run and the first measurement is in.
struct Cluster {
  explicit Cluster(bool correction, bool start = true,
                   model::WorkloadLearning learning = model::WorkloadLearning::off)
      : table_name("publisher"),
        writer({.name = table_name, .capacity = 64}),
        watcher({.kube = {.url = server.url()},
                 .backoff_initial = std::chrono::milliseconds(20),
                 .backoff_max = std::chrono::milliseconds(100),
                 .on_change = [this] { publisher.cluster_changed(); }},
                state),
        publisher({.correction = {.enabled = correction,
                                  .function = QueryFunction::rate,
                                  .window_ms = 300000,
                                  .learn_workloads = learning},
                   .lag_ms = 15000},
                  writer, Publisher::Cluster{state, watcher}) {
    const std::int64_t hour_ago = static_cast<std::int64_t>(std::time(nullptr)) - 3600;
    for (const char* node : {"n1", "n2"}) {
      server.put_node(node);
      server.create_pod(kube::Pod{
          .ns = "shop", .name = std::string("old-") + node, .node = node, .created_s = hour_ago});
    }
    server.create_pod(kube::Pod{.ns = "shop", .name = "new"});
    if (!start) return;
    publisher.start();
    watcher.start();
    publisher.publish(measured(5));
  }
  ~Cluster() {
    watcher.stop();
    publisher.stop();
  }

  NodeScore score(const std::string& node, shm::SnapshotMeta& meta) const {
    ScoreTableReader reader({.name = table_name});
    const std::string_view names[] = {node};
    NodeScore out[1];
    if (reader.lookup(names, out, meta) != ReadStatus::ok) return {};
    return out[0];
  }

  FakeKubeApiServer server;
  testing::TableName table_name;
  ScoreTableWriter writer;
  ClusterState state;
  ClusterWatcher watcher;
  Publisher publisher;
};

TEST(Publisher, ABindingShowsInTheTableAfterItsWatchEvent) {
  Cluster c(true);
  shm::SnapshotMeta meta{};
  ASSERT_TRUE(eventually([&] {
    return (c.score("n1", meta), (meta.flags & shm::kSnapshotCorrected) != 0) &&
           c.state.pod_count() == 2;
  }));
  EXPECT_EQ(c.score("n1", meta).placed_pods, 0U);
  EXPECT_EQ(c.score("n1", meta).corrected_node_score, 0);  // both at 1000: equal
  ASSERT_EQ(c.server.bind_pod("shop", "new", "n1"), 201U);
  // Per pod (1000 + 1000) / 2 settled pods = 1000 B/s, wholly missing right after the binding.
  ASSERT_TRUE(eventually([&] { return c.score("n1", meta).placed_pods == 1; }));
  const NodeScore n1 = c.score("n1", meta);
  EXPECT_DOUBLE_EQ(n1.expected, 1000);
  EXPECT_EQ(n1.raw_score, 1000);
  EXPECT_EQ(n1.corrected_raw_score, 2000);
  EXPECT_EQ(n1.corrected_node_score, 0);
  EXPECT_EQ(n1.node_score, 0);
  EXPECT_EQ(n1.flags & shm::kEntryInCluster, shm::kEntryInCluster);
  EXPECT_EQ(c.score("n2", meta).corrected_node_score, 50);  // 100 - 1000*100/2000
  EXPECT_EQ(c.score("n2", meta).node_score, 0);
  EXPECT_EQ(meta.flags, shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
}

// The records of one pod in the table's ring of recent placements, oldest first.
std::vector<shm::PlacementRecord> placements_of(const Cluster& c, std::string_view pod) {
  std::vector<shm::PlacementRecord> out;
  for (const auto& r : ScoreTableReader({.name = c.table_name}).read_placements()) {
    if (std::string_view(r.pod, std::min<std::size_t>(r.pod_len, shm::kPodNameBytes)) == pod)
      out.push_back(r);
  }
  return out;
}

// A measurement whose traffic per pod, read at `eval_time_ms`, has shop/new at 600 B/s each way.
Measurement measured_with_pod(std::int64_t eval_time_ms) {
  Measurement m = measured(eval_time_ms);
  auto traffic = std::make_shared<PodTraffic>();
  traffic->checked = traffic->in_use = true;
  traffic->eval_time_ms = eval_time_ms;
  traffic->pods["shop/new"] = {
      .receive = 600, .transmit = 600, .receive_valid = true, .transmit_valid = true};
  m.pod_traffic.every_pod = std::move(traffic);
  return m;
}

TEST(Publisher, ABindingIsRecordedWithWhatPricedItAndAgainWhenItsOwnTrafficDoes) {
  Cluster c(true);
  shm::SnapshotMeta meta{};
  ASSERT_TRUE(eventually([&] {
    return (c.score("n1", meta), (meta.flags & shm::kSnapshotCorrected) != 0) &&
           c.state.pod_count() == 2;
  }));
  // The pods placed an hour ago are settled: never recent, never recorded.
  EXPECT_TRUE(ScoreTableReader({.name = c.table_name}).read_placements().empty());
  ASSERT_EQ(c.server.bind_pod("shop", "new", "n1"), 201U);
  ASSERT_TRUE(eventually([&] { return placements_of(c, "shop/new").size() == 1; }));
  const shm::PlacementRecord first = placements_of(c, "shop/new")[0];
  EXPECT_EQ(std::string_view(first.node, first.node_len), "n1");
  EXPECT_EQ(first.node_hash, shm::name_hash("n1"));
  EXPECT_EQ(first.receive_priced_by, shm::kEntryPricedByAverage);
  EXPECT_EQ(first.transmit_priced_by, shm::kEntryPricedByAverage);
  EXPECT_LT(first.receive_rate, 0);
  // Republishes that change nothing about its price write nothing more.
  c.publisher.publish(measured(6));
  c.publisher.publish(measured(7));
  ASSERT_TRUE(eventually([&] { return (c.score("n1", meta), meta.eval_time_ms == 7); }));
  EXPECT_EQ(placements_of(c, "shop/new").size(), 1U);
  // Its own traffic, read 165 s after its binding (lag 15 s, window 300 s: half the window
  // holds it), prices it at 600 / 0.5 = 1200 B/s each way: a second record.
  c.publisher.publish(measured_with_pod(first.placed_wall_ms + 165000));
  ASSERT_TRUE(eventually([&] { return placements_of(c, "shop/new").size() == 2; }));
  const shm::PlacementRecord second = placements_of(c, "shop/new")[1];
  EXPECT_GT(second.number, first.number);
  EXPECT_EQ(second.placed_wall_ms, first.placed_wall_ms);
  EXPECT_EQ(second.receive_priced_by, shm::kEntryPricedByMeasurement);
  EXPECT_EQ(second.transmit_priced_by, shm::kEntryPricedByMeasurement);
  EXPECT_NEAR(second.receive_rate, 1200, 1e-3);
  EXPECT_NEAR(second.transmit_rate, 1200, 1e-3);
}

TEST(Publisher, CorrectionOffPublishesTheMeasuredValuesOnly) {
  Cluster c(false);
  shm::SnapshotMeta meta{};
  ASSERT_TRUE(
      eventually([&] { return (c.score("n1", meta), meta.flags == shm::kSnapshotClusterSynced); }));
  ASSERT_EQ(c.server.bind_pod("shop", "new", "n1"), 201U);
  ASSERT_TRUE(eventually([&] { return c.state.pod_count() == 3; }));
  // A snapshot published after the binding is in the state: a refresh with its own eval time.
  c.publisher.publish(measured(99));
  ASSERT_TRUE(eventually([&] { return (c.score("n1", meta), meta.eval_time_ms == 99); }));
  const NodeScore n1 = c.score("n1", meta);
  EXPECT_EQ(n1.expected, 0);
  EXPECT_EQ(n1.placed_pods, 0U);
  EXPECT_EQ(n1.corrected_raw_score, 1000);
  EXPECT_EQ(n1.corrected_node_score, 0);
  EXPECT_EQ(c.score("n2", meta).corrected_node_score, 0);
  EXPECT_EQ(meta.flags & shm::kSnapshotCorrected, 0U);
  EXPECT_TRUE(placements_of(c, "shop/new").empty()) << "no correction, no price to record";
}

TEST(Publisher, MeasurementsAndBindingsInterleave) {
  Cluster c(true);
  shm::SnapshotMeta meta{};
  ASSERT_TRUE(eventually(
      [&] { return (c.score("n1", meta), (meta.flags & shm::kSnapshotCorrected) != 0); }));
  for (int i = 0; i < 20; ++i) {
    c.server.create_pod(kube::Pod{.ns = "shop", .name = "burst-" + std::to_string(i)});
    ASSERT_EQ(c.server.bind_pod("shop", "burst-" + std::to_string(i), i % 2 == 0 ? "n1" : "n2"),
              201U);
    c.publisher.publish(measured(6 + i));
  }
  EXPECT_TRUE(eventually([&] {
    return c.score("n1", meta).placed_pods == 10 && c.score("n2", meta).placed_pods == 10 &&
           meta.eval_time_ms == 25;
  }));
  shm::CollectorStatus status{};
  ScoreTableReader reader({.name = c.table_name});
  // Each measurement is a refresh the publisher records in the status.
  ASSERT_EQ(reader.read_status(status), ReadStatus::ok);
  EXPECT_EQ(status.refreshes_total, 21U);
  EXPECT_EQ(status.failures_total, 0U);
  EXPECT_EQ(status.series_count, 2U);
}

// Workload learning's fit runs outside the publisher's lock, so refreshes that learn race the
// publishes the watcher's events make: every binding still reaches the table, every refresh is
// recorded, and the fits learned.
TEST(Publisher, RefreshesThatLearnAndBindingsInterleave) {
  constexpr int kBindings = 40;
  const auto measured_rates = [](std::int64_t eval_time_ms) {
    Measurement m = measured(eval_time_ms);
    for (auto& sample : m.nodes.samples) {
      sample.rate = sample.value;
      sample.rate_valid = true;
    }
    return m;
  };
  Cluster c(true, true, model::WorkloadLearning::on);
  shm::SnapshotMeta meta{};
  ASSERT_TRUE(eventually(
      [&] { return (c.score("n1", meta), (meta.flags & shm::kSnapshotCorrected) != 0); }));
  {
    std::jthread refreshes([&] {
      for (int i = 0; i < kBindings; ++i) c.publisher.publish(measured_rates(6 + i));
    });
    for (int i = 0; i < kBindings; ++i) {
      c.server.create_pod(kube::Pod{.ns = "shop", .name = "burst-" + std::to_string(i)});
      ASSERT_EQ(c.server.bind_pod("shop", "burst-" + std::to_string(i), i % 2 == 0 ? "n1" : "n2"),
                201U);
    }
  }
  EXPECT_TRUE(eventually([&] {
    return c.score("n1", meta).placed_pods == kBindings / 2 &&
           c.score("n2", meta).placed_pods == kBindings / 2 && meta.eval_time_ms == 5 + kBindings;
  }));
  shm::CollectorStatus status{};
  ScoreTableReader reader({.name = c.table_name});
  ASSERT_EQ(reader.read_status(status), ReadStatus::ok);
  EXPECT_EQ(status.refreshes_total, kBindings + 1U);
  EXPECT_TRUE(c.state.learned_per_pod().receive.has_value());
}

// Prometheus down from the start: refreshes report failures, no measurement ever arrives, and the
// watcher's progress must still reach the status the extender shows.
TEST(Publisher, WatchStateReachesTheStatusWithoutAMeasurement) {
  Cluster c(true, false);
  c.publisher.start();
  for (int i = 0; i < 3; ++i) {
    c.publisher.publish({.error = "transport error: connection refused"});
  }
  ScoreTableReader reader({.name = c.table_name});
  shm::CollectorStatus status{};
  ASSERT_TRUE(eventually([&] { return reader.read_status(status) == ReadStatus::ok; }));
  ASSERT_NE(status.watch_state, static_cast<std::uint32_t>(shm::WatchState::synced));
  c.watcher.start();
  EXPECT_TRUE(eventually([&] {
    return reader.read_status(status) == ReadStatus::ok &&
           status.watch_state == static_cast<std::uint32_t>(shm::WatchState::synced);
  }));
  EXPECT_EQ(status.consecutive_failures, 3U);
  EXPECT_EQ(status.watch_nodes, 2U);
  shm::SnapshotMeta meta{};
  EXPECT_EQ(c.score("n1", meta).found, false);
}

}  // namespace
}  // namespace netscore::collector
