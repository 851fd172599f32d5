#include "extender/views/cluster_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace netscore::extender
