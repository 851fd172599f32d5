#include "extender/views/cluster_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/clock.h"
#include "extender/http/handlers.h"
#include "tests/unit/extender/correction_fixture.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TableRow row(std::string name, std::uint32_t flags) {
  return {std::move(name), NodeScore{{.flags = flags | shm::kEntryValid}, true}};
}

const std::vector<TableRow> kRows = {row("z-no-series", shm::kEntryInCluster),
                                     row("both", shm::kEntryInCluster | shm::kEntryHasSeries),
                                     row("a-no-series", shm::kEntryInCluster),
                                     row("orphan", shm::kEntryHasSeries)};

std::string scrape(const shm::CollectorStatus* status, const shm::SnapshotMeta* meta,
                   const std::vector<TableRow>* rows, std::int64_t now) {
  MetricFamilies families;
  collect_cluster_metrics(status, meta, rows, now, families);
  std::string out;
  write_prometheus_text(families, out);
  return out;
}

TEST(ClusterViewTest, MismatchOnlyOnceSynced) {
  shm::SnapshotMeta meta{};
  EXPECT_FALSE(cluster_mismatch(kRows, meta).known);
  EXPECT_TRUE(cluster_mismatch(kRows, meta).nodes_without_series.empty());
  meta.flags = shm::kSnapshotClusterSynced;
  const ClusterMismatch m = cluster_mismatch(kRows, meta);
  EXPECT_TRUE(m.known);
  EXPECT_EQ(m.nodes_without_series, (std::vector<std::string>{"a-no-series", "z-no-series"}));
  EXPECT_EQ(m.series_without_node, (std::vector<std::string>{"orphan"}));
}

TEST(ClusterViewTest, WatchEventAge) {
  shm::CollectorStatus status{};
  EXPECT_EQ(watch_event_age_ns(status, 100), -1);
  status.watch_last_event_mono_ns = 40;
  EXPECT_EQ(watch_event_age_ns(status, 100), 60);
  EXPECT_EQ(watch_event_age_ns(status, 10), 0);
}

TEST(ClusterViewTest, MetricsFollowWhatWasRead) {
  EXPECT_EQ(scrape(nullptr, nullptr, nullptr, 0), "");
  shm::CollectorStatus status{};
  status.watch_state = static_cast<std::uint32_t>(shm::WatchState::syncing);
  status.watch_pods = 7;
  shm::SnapshotMeta meta{};
  meta.flags = shm::kSnapshotCorrected | shm::kSnapshotClusterSynced;
  const std::string out = scrape(&status, &meta, &kRows, 0);
  EXPECT_THAT(out, HasSubstr("netscore_extender_kube_watch_state{state=\"syncing\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_kube_watch_state{state=\"synced\"} 0\n"));
  EXPECT_THAT(out, HasSubstr("\nnetscore_extender_kube_watch_pods 7\n"));
  EXPECT_THAT(out, Not(HasSubstr("last_event_age")));
  EXPECT_THAT(out, HasSubstr("\nnetscore_extender_table_corrected 1\n"));
  EXPECT_THAT(out, HasSubstr("\nnetscore_extender_nodes_without_series 2\n"));
  EXPECT_THAT(out, HasSubstr("\nnetscore_extender_series_without_node 1\n"));
  EXPECT_THAT(scrape(nullptr, &meta, nullptr, 0), Not(HasSubstr("nodes_without_series")));
}

// The cluster view as /table and /metrics serve it, over a corrected table with a cluster mismatch.
using correction_fixture::CorrectionTest;
using correction_fixture::entries;
using correction_fixture::uncorrected_entries;
namespace http = boost::beast::http;

TEST_F(CorrectionTest, TableJsonShowsSeedAndCorrectedScoresAndTheClusterMismatch) {
  publish(entries(), shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  const std::string body = call(http::verb::get, "/table").body;
  EXPECT_THAT(body, HasSubstr(R"("corrected":true)"));
  EXPECT_THAT(body,
              HasSubstr(R"({"name":"a","raw":0.0,"raw_score":0,"score":100,"extender_score":10,)"));
  EXPECT_THAT(
      body,
      HasSubstr(
          R"("valid":true,"has_series":true,"in_cluster":true,"rate":0.0,"expected":300.0,)"
          R"("placed_pods":3,"corrected_raw_score":300,"corrected_score":0,"effective_score":0,)"
          R"("effective_extender_score":0,)"));
  EXPECT_THAT(
      body,
      HasSubstr(
          R"("cluster":{"synced":true,"in_cluster_count":4,"nodes_without_series":["quiet-node"],)"
          R"("series_without_node":["old-node"]})"));
  // Correction off: the effective score is the seed score.
  publish(entries(), shm::kSnapshotClusterSynced);
  const std::string off = call(http::verb::get, "/table").body;
  EXPECT_THAT(off, HasSubstr(R"("corrected":false)"));
  EXPECT_THAT(
      off,
      HasSubstr(R"("corrected_score":0,"effective_score":100,"effective_extender_score":10,)"));
}

TEST_F(CorrectionTest, MismatchListsNeedAClusterSyncedSnapshot) {
  publish(entries(), 0);
  const std::string body = call(http::verb::get, "/table").body;
  EXPECT_THAT(
      body, HasSubstr(R"("cluster":{"synced":false,"in_cluster_count":4,"nodes_without_series":[],)"
                      R"("series_without_node":[]})"));
  EXPECT_THAT(call(http::verb::get, "/metrics").body,
              Not(HasSubstr("netscore_extender_nodes_without_series")));
}

TEST_F(CorrectionTest, TableShowsTheWatcherState) {
  publish(entries(), shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  shm::CollectorStatus status{};
  status.watch_state = static_cast<std::uint32_t>(shm::WatchState::failing);
  status.watch_nodes = 4;
  status.watch_pods = 31;
  status.watch_placements = 3;
  status.watch_errors_total = 2;
  status.watch_relists_total = 1;
  status.watch_synced_wall_ms = 5000;
  status.watch_last_event_wall_ms = 6000;
  status.watch_last_event_mono_ns = mono_now_ns() - 2'000'000'000;
  std::strcpy(status.watch_resource_version, "12345");
  std::strcpy(status.watch_error, "watch pods: HTTP 403");
  writer_->record_status(status);
  const std::string body = call(http::verb::get, "/table").body;
  EXPECT_THAT(
      body,
      HasSubstr(R"("watcher":{"state":"failing","synced_wall_ms":5000,"resource_version":"12345",)"
                R"("last_event_wall_ms":6000,"last_event_age_seconds":)"));
  EXPECT_THAT(body,
              HasSubstr(R"("errors_total":2,"relists_total":1,"nodes":4,"pods":31,"placements":3,)"
                        R"("error":"watch pods: HTTP 403"})"));
  const std::string text = call(http::verb::get, "/table?format=text").body;
  EXPECT_THAT(text, HasSubstr("watcher: failing resource_version=\"12345\" last_event_age="));
  EXPECT_THAT(
      text,
      HasSubstr(
          "errors=2 relists=1 nodes=4 pods=31 placements=3 error=\"watch pods: HTTP 403\"\n"));
  EXPECT_THAT(
      text, HasSubstr("nodes without series (1): quiet-node\nseries without node (1): old-node\n"));
  // Sorted by the effective score: b (84) before c (34) before a (0).
  const auto b = text.find("\nb "), c = text.find("\nc "), a = text.find("\na ");
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(b, c);
  EXPECT_LT(c, a);
}

TEST_F(CorrectionTest, MetricsExposeWatcherHealthAndTheMismatch) {
  publish(entries(), shm::kSnapshotCorrected | shm::kSnapshotClusterSynced);
  shm::CollectorStatus status{};
  status.watch_state = static_cast<std::uint32_t>(shm::WatchState::synced);
  status.watch_nodes = 4;
  status.watch_pods = 31;
  status.watch_placements = 3;
  status.watch_errors_total = 2;
  status.watch_relists_total = 1;
  status.watch_last_event_mono_ns = mono_now_ns();
  writer_->record_status(status);
  const std::string body = call(http::verb::get, "/metrics").body;
  EXPECT_THAT(body, HasSubstr("netscore_extender_kube_watch_state{state=\"synced\"} 1\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_kube_watch_state{state=\"failing\"} 0\n"));
  EXPECT_THAT(body, HasSubstr("# TYPE netscore_extender_kube_watch_errors_total counter\n"
                              "netscore_extender_kube_watch_errors_total 2\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_kube_watch_relists_total 1\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_kube_watch_pods 31\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_kube_watch_placements 3\n"));
  EXPECT_THAT(body,
              HasSubstr("# TYPE netscore_extender_kube_watch_last_event_age_seconds gauge\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_table_corrected 1\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_nodes_without_series 1\n"));
  EXPECT_THAT(body, HasSubstr("netscore_extender_series_without_node 1\n"));
}

TEST_F(CorrectionTest, WatchOffShowsNoEventAge) {
  publish(uncorrected_entries(), 0);
  writer_->record_status(shm::CollectorStatus{});
  EXPECT_THAT(call(http::verb::get, "/table").body, HasSubstr(R"("state":"off",)"));
  EXPECT_THAT(call(http::verb::get, "/table").body, HasSubstr(R"("last_event_age_seconds":null,)"));
  const std::string metrics = call(http::verb::get, "/metrics").body;
  EXPECT_THAT(metrics, HasSubstr("netscore_extender_kube_watch_state{state=\"off\"} 1\n"));
  EXPECT_THAT(metrics, Not(HasSubstr("netscore_extender_kube_watch_last_event_age_seconds")));
  EXPECT_THAT(metrics, HasSubstr("netscore_extender_table_corrected 0\n"));
}

}  // namespace
}  // namespace netscore::extender
