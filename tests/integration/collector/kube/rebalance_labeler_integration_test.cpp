// The rebalance labeler against the fake API server: the pod nominated on an over-utilised node
// is labelled with a merge patch, stale labels are removed, and the writes per round are bounded.
#include "collector/kube/rebalance_labeler.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/table/score_table_writer.h"
#include "tests/support/curl_environment.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_kube_apiserver.h"
#include "tests/support/scratch_table.h"

namespace netscore::collector {
namespace {

using testing::eventually;
using testing::FakeKubeApiServer;
namespace kube = testing::kube;

constexpr double kLinkSpeed = 1e8;  // bytes/s

// A pod of the ReplicaSet shop/web, running for two hours, priced by its annotation.
kube::Pod web_pod(const std::string& name, const std::string& node, const std::string& rate) {
  const std::int64_t two_hours_ago = wall_now_ms() / 1000 - 7200;
  return kube::Pod{.ns = "shop",
                   .name = name,
                   .node = node,
                   .phase = "Running",
                   .annotations = {{"netscore.io/expected-receive-rate", rate}},
                   .created_s = two_hours_ago,
                   .owner = kube::OwnerReference{.kind = "ReplicaSet", .name = "web", .uid = "rs"}};
}

TableEntry node_entry(const std::string& name, double utilisation) {
  TableEntry e;
  e.name = name;
  e.rate = utilisation * kLinkSpeed;
  e.speed = kLinkSpeed;
  e.flags = model::kEntryRateValid | model::kEntrySpeedMeasured;
  return e;
}

bool labelled(const FakeKubeApiServer& server, const std::string& name) {
  const auto pod = server.pod("shop", name);
  return pod && pod->labels.contains("netscore.io/rebalance") &&
         pod->labels.at("netscore.io/rebalance") == "evict";
}

bool nominated_in(const ClusterState& state, const std::string& name) {
  for (const auto& pod : state.bound_pods()) {
    if (pod.name == "shop/" + name) return pod.nominated;
  }
  return false;
}

class RebalanceLabelerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* node : {"n1", "n2", "n3", "n4"}) server_.put_node(node);
    // n1 at 70 points needs 25 moved to come down to 45 (the mean 35 + 10).
    server_.create_pod(web_pod("big", "n1", "30000000"));  // would take n3 over 45
    server_.create_pod(web_pod("enough", "n1", "25000000"));
    server_.create_pod(web_pod("small", "n1", "10000000"));
    server_.create_pod(web_pod("quiet", "n2", "1000000"));
    publish({{"n1", 0.70}, {"n2", 0.30}, {"n3", 0.20}, {"n4", 0.20}});
    watcher_.start();
    ASSERT_TRUE(eventually([&] { return watcher_.status().state == shm::WatchState::synced; }));
  }
  void TearDown() override { watcher_.stop(); }

  // The table and the descheduler's reading alike.
  void publish(const std::vector<std::pair<std::string, double>>& nodes) {
    std::vector<TableEntry> entries;
    for (const auto& [name, utilisation] : nodes) entries.push_back(node_entry(name, utilisation));
    writer_.publish(entries, wall_now_ms());
    read(nodes);
  }

  void read(const std::vector<std::pair<std::string, double>>& nodes) {
    status_.set_utilisation(std::make_shared<const model::LinkLoads>(
        model::LinkLoads{.by_node = {nodes.begin(), nodes.end()}}));
  }

  RebalanceLabeler::Options labeler_options() const {
    RebalanceLabeler::Options o;
    o.kube = {.url = server_.url()};
    o.table = table_;
    // Long: a write is not repeated within two intervals, whatever the watch shows by then.
    o.interval = std::chrono::minutes(1);
    return o;
  }

  FakeKubeApiServer server_;
  testing::ScratchTable table_{"rebalance"};
  ScoreTableWriter writer_{{.name = table_, .capacity = 16, .mode = 0600}};
  ClusterState state_;
  ClusterWatcher watcher_{{.kube = {.url = server_.url()}}, state_};
  RebalanceStatus status_;
};

TEST_F(RebalanceLabelerTest, LabelsTheNomineeAndRemovesStaleLabels) {
  kube::Pod stale = web_pod("stale", "n2", "1000");
  stale.labels["netscore.io/rebalance"] = "evict";
  server_.create_pod(stale);
  ASSERT_TRUE(eventually([&] { return nominated_in(state_, "stale"); }));

  RebalanceLabeler labeler(labeler_options(), state_, watcher_, status_);
  labeler.round();
  EXPECT_TRUE(labelled(server_, "enough"));
  EXPECT_FALSE(labelled(server_, "stale"));
  EXPECT_FALSE(labelled(server_, "big"));
  EXPECT_FALSE(labelled(server_, "small"));
  const auto after_first = labeler.counters();
  EXPECT_EQ(after_first.labelled, 1U);
  EXPECT_EQ(after_first.unlabelled, 1U);
  EXPECT_EQ(after_first.failures, 0U);

  // Once the watch shows the label, nothing more is written.
  ASSERT_TRUE(eventually([&] { return nominated_in(state_, "enough"); }));
  ASSERT_TRUE(eventually([&] { return !nominated_in(state_, "stale"); }));
  const auto patches = server_.counters().patches;
  labeler.round();
  EXPECT_EQ(server_.counters().patches, patches);

  // n1 cools: its nominee loses the label.
  publish({{"n1", 0.30}, {"n2", 0.30}, {"n3", 0.20}, {"n4", 0.20}});
  labeler.round();
  EXPECT_FALSE(labelled(server_, "enough"));
  EXPECT_EQ(labeler.counters().unlabelled, 2U);
}

TEST_F(RebalanceLabelerTest, WritesPerRoundAreBounded) {
  for (const char* name : {"old-a", "old-b", "old-c"}) {
    kube::Pod pod = web_pod(name, "n2", "1000");
    pod.labels["netscore.io/rebalance"] = "evict";
    server_.create_pod(pod);
  }
  ASSERT_TRUE(eventually([&] { return nominated_in(state_, "old-c"); }));
  RebalanceLabeler::Options options = labeler_options();
  options.max_writes = 2;
  RebalanceLabeler labeler(options, state_, watcher_, status_);
  labeler.round();
  EXPECT_EQ(server_.counters().patches, 2U);
  labeler.round();
  EXPECT_EQ(server_.counters().patches, 4U);
  EXPECT_FALSE(labelled(server_, "old-a"));
  EXPECT_FALSE(labelled(server_, "old-b"));
  EXPECT_FALSE(labelled(server_, "old-c"));
  EXPECT_TRUE(labelled(server_, "enough"));
}

TEST_F(RebalanceLabelerTest, AFailedPatchIsCountedAndRetried) {
  RebalanceLabeler labeler(labeler_options(), state_, watcher_, status_);
  server_.fail_next_requests(500, 1, 0, "PATCH");
  labeler.round();
  EXPECT_EQ(labeler.counters().failures, 1U);
  EXPECT_EQ(status_.patch_failures_total, 1U);
  EXPECT_EQ(status_.nominees, 1U);
  EXPECT_FALSE(labelled(server_, "enough"));
  labeler.round();  // a failed write is not remembered: tried again at once
  EXPECT_TRUE(labelled(server_, "enough"));
  EXPECT_EQ(labeler.counters().labelled, 1U);
  EXPECT_EQ(status_.patches_total, 1U);
}

// The table's utilisation is over the scores' window; the descheduler's reading, over a shorter
// one, is what decides.
TEST_F(RebalanceLabelerTest, NominatesByTheDeschedulersReading) {
  read({{"n1", 0.30}, {"n2", 0.30}, {"n3", 0.20}, {"n4", 0.20}});
  RebalanceLabeler labeler(labeler_options(), state_, watcher_, status_);
  labeler.round();
  EXPECT_EQ(status_.nominees, 0U);
  EXPECT_FALSE(labelled(server_, "enough"));
  read({{"n1", 0.70}, {"n2", 0.30}, {"n3", 0.20}, {"n4", 0.20}});
  labeler.round();
  EXPECT_EQ(status_.nominees, 1U);
  EXPECT_TRUE(labelled(server_, "enough"));
  // Without a reading (the last failed) the labels stay as they are, although n1 cooled.
  publish({{"n1", 0.30}, {"n2", 0.30}, {"n3", 0.20}, {"n4", 0.20}});
  status_.set_utilisation(nullptr);
  const auto patches = server_.counters().patches;
  labeler.round();
  EXPECT_EQ(server_.counters().patches, patches);
  EXPECT_TRUE(labelled(server_, "enough"));
}

TEST_F(RebalanceLabelerTest, AWorkloadWhoseNomineeLeftRests) {
  RebalanceLabeler labeler(labeler_options(), state_, watcher_, status_);
  labeler.round();
  ASSERT_TRUE(labelled(server_, "enough"));
  // Evicted: its workload gets no other nominee for the rest period, although n1 is still hot.
  ASSERT_TRUE(server_.delete_pod("shop", "enough"));
  ASSERT_TRUE(eventually([&] {
    for (const auto& pod : state_.bound_pods()) {
      if (pod.name == "shop/enough") return false;
    }
    return true;
  }));
  labeler.round();
  EXPECT_FALSE(labelled(server_, "big"));
  EXPECT_FALSE(labelled(server_, "small"));
  EXPECT_EQ(labeler.counters().labelled, 1U);
}

TEST(RebalanceLabelPatch, SetsOrRemovesTheOneLabel) {
  EXPECT_EQ(rebalance_label_patch(true),
            R"({"metadata":{"labels":{"netscore.io/rebalance":"evict"}}})");
  EXPECT_EQ(rebalance_label_patch(false),
            R"({"metadata":{"labels":{"netscore.io/rebalance":null}}})");
}

}  // namespace
}  // namespace netscore::collector
