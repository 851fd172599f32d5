// The recent placements the publisher records: each recent pod once, again only when what prices
// it changes, never a settled pod or one on its node's network.
#include "collector/pipeline/placement_records.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"
#include "tests/support/table_name.h"

namespace netscore::collector {
namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;

class PlacementRecordsTest : public ::testing::Test {
 protected:
  PlacementRecordsTest() {
    state_.upsert_node({.name = "n1"});
    // Scheduled two hours ago as a relist finds it: beyond the ledger's one-hour horizon, settled.
    state_.replace_pods(
        {{.uid = "old", .node = "n1", .scheduled_ms = kNow - 7'200'000, .name = "shop/old"}}, kNow);
    state_.upsert_pod(
        {.uid = "u1", .node = "n1", .workload = "shop/Deployment/web", .name = "shop/web-1"}, kNow);
    state_.upsert_pod(
        {.uid = "u2", .node = "n1", .name = "kube-system/agent", .host_network = true}, kNow);
  }
  std::vector<shm::PlacementRecord> read() const {
    return ScoreTableReader({.name = name_.str()}).read_placements();
  }

  testing::TableName name_{"records"};
  ScoreTableWriter writer_{{.name = name_.str(), .capacity = 8}};
  ClusterState state_;
  PlacementRecords records_;
};

TEST_F(PlacementRecordsTest, ARecentPodIsRecordedOnceUntilWhatPricesItChanges) {
  records_.record(state_, writer_, kNow + 10);
  auto r = read();
  ASSERT_EQ(r.size(), 1U) << "neither the settled pod nor the host-network one";
  EXPECT_EQ(std::string_view(r[0].pod, r[0].pod_len), "shop/web-1");
  EXPECT_EQ(std::string_view(r[0].node, r[0].node_len), "n1");
  EXPECT_EQ(r[0].placed_wall_ms, kNow);
  EXPECT_EQ(r[0].written_wall_ms, kNow + 10);
  EXPECT_EQ(r[0].receive_priced_by, shm::kEntryPricedByAverage);
  records_.record(state_, writer_, kNow + 20);
  EXPECT_EQ(read().size(), 1U);
  // Its own traffic read with a third of the window held: 100 B/s over it is 300 B/s.
  const model::MeasuredPod measured[] = {{.name = "shop/web-1", .receive = 100, .transmit = -1}};
  state_.measure_pods(measured, {.now_ms = kNow + 100'000, .lag_ms = 0, .window_ms = 300'000});
  records_.record(state_, writer_, kNow + 30);
  r = read();
  ASSERT_EQ(r.size(), 2U);
  EXPECT_EQ(r[1].receive_priced_by, shm::kEntryPricedByMeasurement);
  EXPECT_NEAR(r[1].receive_rate, 300, 1e-3);
  EXPECT_EQ(r[1].transmit_priced_by, shm::kEntryPricedByAverage);
  EXPECT_LT(r[1].transmit_rate, 0);
}

TEST_F(PlacementRecordsTest, APodThatLeftAndCameBackIsRecordedAnew) {
  records_.record(state_, writer_, kNow);
  state_.remove_pod("u1", kNow + 1);
  records_.record(state_, writer_, kNow + 2);
  state_.upsert_pod({.uid = "u1", .node = "n1", .name = "shop/web-1"}, kNow + 3);
  records_.record(state_, writer_, kNow + 4);
  const auto r = read();
  ASSERT_EQ(r.size(), 2U);
  EXPECT_EQ(r[1].placed_wall_ms, kNow + 3);
}

TEST(PlacementRecordTest, ALongPodNameIsCutButItsLengthKept) {
  const std::string name = "ns/" + std::string(300, 'p');
  const model::RecentPod pod{.uid = "u", .name = name, .node = "node-a", .placed_ms = 5};
  const shm::PlacementRecord r = placement_record(pod, 6);
  EXPECT_EQ(r.pod_len, name.size());
  EXPECT_EQ(std::string_view(r.pod, shm::kPodNameBytes), name.substr(0, shm::kPodNameBytes));
  EXPECT_EQ(r.node_hash, shm::name_hash("node-a"));
  EXPECT_EQ(r.receive_priced_by, shm::kEntryPricedByAverage);
}

}  // namespace
}  // namespace netscore::collector
