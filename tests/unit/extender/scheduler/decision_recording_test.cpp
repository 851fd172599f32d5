#include "extender/scheduler/decision_recording.h"

#include <gtest/gtest.h>

#include <array>
#include <string_view>
#include <vector>

namespace netscore::extender {
namespace {

ExtenderArgs args_for(const std::vector<std::string_view>& names) {
  ExtenderArgs args;
  args.names = names;
  args.pod_namespace = "ns";
  args.pod_name = "p";
  args.pod_uid = "u";
  return args;
}

TEST(DecisionRecordingTest, FilterListsFailuresFirstWithTheirReasons) {
  DecisionLog log(8, 64);
  const std::vector<std::string_view> names = {"a", "b", "c"};
  const ExtenderArgs args = args_for(names);
  const std::array<std::size_t, 2> passed = {0, 2};
  const std::array<FailedNode, 1> failed = {FailedNode{1, "too busy"}};
  record_filter(log, args, Lookup{.freshness = Freshness::fresh}, {}, passed, failed);
  const auto decisions = log.find("ns", "p", "", 10);
  ASSERT_EQ(decisions.size(), 1U);
  const Decision& d = decisions[0];
  EXPECT_EQ(d.header.verb, Verb::filter);
  EXPECT_EQ(d.header.pod_uid.view(), "u");
  ASSERT_EQ(d.nodes.size(), 3U);
  EXPECT_EQ(d.nodes[0].name.view(), "b");
  EXPECT_EQ(d.nodes[0].verdict, FilterVerdict::failed);
  EXPECT_EQ(d.nodes[0].reason.view(), "too busy");
  EXPECT_FALSE(d.nodes[0].found);  // nothing looked up
  EXPECT_EQ(d.nodes[1].name.view(), "a");
  EXPECT_EQ(d.nodes[2].verdict, FilterVerdict::passed);
}

TEST(DecisionRecordingTest, PrioritizeKeepsScoresAndUnfilteredFailures) {
  DecisionLog log(8, 64);
  const std::vector<std::string_view> names = {"a", "b"};
  const ExtenderArgs args = args_for(names);
  std::vector<NodeScore> found(2);
  found[0] = {
      {.raw = 12, .rate = 3, .expected = 4, .flags = shm::kEntryValid | shm::kEntryRateValid},
      true};
  const std::array<std::int64_t, 2> scores = {10, 0};
  const std::array<std::int16_t, 2> percent = {100, -1};
  const std::array<FailedNode, 1> unfiltered = {FailedNode{1, "rate"}};
  ExtenderConfig config;
  config.normalisation = Normalisation::range;
  record_prioritize(log, config, args, Lookup{.freshness = Freshness::fresh}, found, scores,
                    percent, unfiltered);
  const auto decisions = log.find("", "", "u", 10);
  ASSERT_EQ(decisions.size(), 1U);
  const Decision& d = decisions[0];
  EXPECT_EQ(d.header.normalisation, Normalisation::range);
  ASSERT_EQ(d.nodes.size(), 2U);
  EXPECT_EQ(d.nodes[0].seed_raw, 12);
  EXPECT_EQ(d.nodes[0].correction, 4);
  EXPECT_EQ(d.nodes[0].rate, 3);
  EXPECT_EQ(d.nodes[0].extender_score, 10);
  EXPECT_EQ(d.nodes[0].verdict, FilterVerdict::none);
  EXPECT_EQ(d.nodes[1].rate, -1);
  EXPECT_EQ(d.nodes[1].score, -1);
  EXPECT_EQ(d.nodes[1].verdict, FilterVerdict::failed);
  EXPECT_EQ(d.nodes[1].reason.view(), "rate");
}

TEST(DecisionRecordingTest, NodesSayWhatTheyWereScoredOn) {
  DecisionLog log(8, 64);
  const std::vector<std::string_view> names = {"util", "bytes", "unknown"};
  const ExtenderArgs args = args_for(names);
  std::vector<NodeScore> found(3);
  found[0] = {{.raw = 12,
               .flags = shm::kEntryValid | shm::kEntrySpeedFallback | shm::kEntryUtilisation,
               .speed = 1.25e8,
               .scored = 0.25},
              true};
  found[1] = {{.raw = 12, .flags = shm::kEntryValid, .scored = 12}, true};
  const std::array<std::int64_t, 3> scores = {10, 0, 5};
  const std::array<std::int16_t, 3> percent = {100, 0, -1};
  record_prioritize(log, ExtenderConfig{}, args, Lookup{.freshness = Freshness::fresh}, found,
                    scores, percent, {});
  const auto decisions = log.find("", "", "u", 10);
  ASSERT_EQ(decisions.size(), 1U);
  const auto& nodes = decisions[0].nodes;
  ASSERT_EQ(nodes.size(), 3U);
  EXPECT_TRUE(nodes[0].utilisation);
  EXPECT_EQ(nodes[0].scored, 0.25);
  EXPECT_EQ(nodes[0].speed, 1.25e8);
  EXPECT_FALSE(nodes[1].utilisation);
  EXPECT_EQ(nodes[1].scored, 12);
  EXPECT_EQ(nodes[1].speed, -1);
  EXPECT_FALSE(nodes[2].found);
  EXPECT_EQ(nodes[2].speed, -1);
}

}  // namespace
}  // namespace netscore::extender
