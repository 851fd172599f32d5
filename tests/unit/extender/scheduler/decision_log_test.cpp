#include "extender/scheduler/decision_log.h"

#include <gtest/gtest.h>

#include <string>

namespace netscore::extender {
namespace {

DecisionHeader pod(std::string_view ns, std::string_view name, std::string_view uid = {}) {
  DecisionHeader h;
  h.verb = Verb::prioritize;
  h.pod_namespace.set(ns);
  h.pod_name.set(name);
  h.pod_uid.set(uid);
  return h;
}

void record(DecisionLog& log, const DecisionHeader& h, std::size_t nodes) {
  log.record(h, nodes, [](std::size_t i, NodeDecision& n) {
    n.name.set("node-" + std::to_string(i));
    n.seed_raw = static_cast<double>(i);
  });
}

TEST(DecisionLog, KeepsTheLatestDecisionsPerPodNewestFirst) {
  DecisionLog log(8, 64);
  for (int i = 0; i < 3; ++i) record(log, pod("ns", "p1", "u1"), 2);
  record(log, pod("ns", "p2"), 1);
  const auto p1 = log.find("ns", "p1", {}, 10);
  ASSERT_EQ(p1.size(), 3U);
  EXPECT_EQ(p1[0].header.ticket, 3U);
  EXPECT_EQ(p1[2].header.ticket, 1U);
  ASSERT_EQ(p1[0].nodes.size(), 2U);
  EXPECT_EQ(p1[0].nodes[1].name.view(), "node-1");
  EXPECT_EQ(log.find("ns", "p1", {}, 2).size(), 2U);
  EXPECT_EQ(log.find({}, {}, "u1", 10).size(), 3U);
  EXPECT_TRUE(log.find("ns", "p3", {}, 10).empty());
  EXPECT_TRUE(log.find("other", "p1", {}, 10).empty());
}

TEST(DecisionLog, OldDecisionsAndNodeRecordsAreOverwrittenNotTorn) {
  DecisionLog log(4, 10);
  record(log, pod("ns", "old"), 3);
  for (int i = 0; i < 4; ++i) record(log, pod("ns", "new"), 1);
  EXPECT_TRUE(log.find("ns", "old", {}, 10).empty());  // its slot was reused
  EXPECT_EQ(log.find("ns", "new", {}, 10).size(), 4U);

  DecisionLog small(8, 10);  // two blocks of eight node records
  ASSERT_EQ(small.node_capacity(), 2 * kNodesPerBlock);
  record(small, pod("ns", "a"), 4);
  record(small, pod("ns", "b"), 5);
  record(small, pod("ns", "c"), 5);  // wrapping, c's block is a's
  const auto a = small.find("ns", "a", {}, 1);
  ASSERT_EQ(a.size(), 1U);
  EXPECT_TRUE(a[0].nodes.empty());
  EXPECT_EQ(a[0].nodes_overwritten, 4U);
  const auto b = small.find("ns", "b", {}, 1);
  EXPECT_EQ(b[0].nodes.size(), 5U);
  EXPECT_EQ(b[0].nodes_overwritten, 0U);
  EXPECT_EQ(b[0].nodes[4].name.view(), "node-4");
  EXPECT_EQ(small.find("ns", "c", {}, 1)[0].nodes.size(), 5U);
}

TEST(DecisionLog, OneHugeRequestKeepsAtMostHalfTheNodeRecords) {
  DecisionLog log(4, 4 * kNodesPerBlock);
  record(log, pod("ns", "big"), 100);
  const auto big = log.find("ns", "big", {}, 1);
  ASSERT_EQ(big.size(), 1U);
  EXPECT_EQ(big[0].header.nodes_asked, 100U);
  EXPECT_EQ(big[0].header.nodes_recorded, 2 * kNodesPerBlock);
  EXPECT_EQ(big[0].nodes.size(), 2 * kNodesPerBlock);
}

TEST(DecisionLog, NodesSpanningBlocksComeBackInOrderAndAreOverwrittenByTheBlock) {
  DecisionLog log(8, 8 * kNodesPerBlock);
  const std::size_t spanning = 2 * kNodesPerBlock + 3;
  record(log, pod("ns", "x"), spanning);  // blocks 0..2
  const auto x = log.find("ns", "x", {}, 1);
  ASSERT_EQ(x.size(), 1U);
  ASSERT_EQ(x[0].nodes.size(), spanning);
  for (std::size_t i = 0; i < spanning; ++i) {
    EXPECT_EQ(x[0].nodes[i].name.view(), "node-" + std::to_string(i));
  }
  record(log, pod("ns", "y"), 4 * kNodesPerBlock);  // blocks 3..6
  record(log, pod("ns", "z"), kNodesPerBlock + 1);  // blocks 7 and, wrapping, 0
  const auto cut = log.find("ns", "x", {}, 1);
  ASSERT_EQ(cut.size(), 1U);
  EXPECT_EQ(cut[0].nodes_overwritten, kNodesPerBlock);
  ASSERT_EQ(cut[0].nodes.size(), kNodesPerBlock + 3);
  EXPECT_EQ(cut[0].nodes[0].name.view(), "node-" + std::to_string(kNodesPerBlock));
  EXPECT_EQ(log.find("ns", "z", {}, 1)[0].nodes.size(), kNodesPerBlock + 1);
}

TEST(DecisionLog, LongTextIsCutAndFlagged) {
  DecisionLog log(4, 10);
  const std::string long_name(100, 'n');
  log.record(pod("ns", "p"), 1, [&](std::size_t, NodeDecision& n) { n.name.set(long_name); });
  const auto d = log.find("ns", "p", {}, 1);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_TRUE(d[0].nodes[0].name.truncated());
  EXPECT_EQ(d[0].nodes[0].name.view(), long_name.substr(0, 64));
}

TEST(DecisionLog, DisabledRecordsNothing) {
  DecisionLog log(0, 100);
  EXPECT_FALSE(log.enabled());
  record(log, pod("ns", "p"), 3);
  EXPECT_TRUE(log.find("ns", "p", {}, 10).empty());
  EXPECT_EQ(log.recorded(), 0U);
}

}  // namespace
}  // namespace netscore::extender
