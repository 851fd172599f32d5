#include "common/model/rebalance.h"

#include <gtest/gtest.h>

namespace netscore::model {
namespace {

constexpr double kSpeed = 1e8;  // bytes/s: one point of utilisation is 1e6
constexpr std::int64_t kNow = 10'000'000;
constexpr std::int64_t kHourAgo = kNow - 3'600'000;

// Points of the utilisation itself, 10 over and 5 under the mean: the arithmetic of most cases
// below; the relative figure's own cases say what changes with it.
RebalanceSettings absolute(RebalanceSettings settings = {}) {
  settings.figure = RebalanceFigure::absolute;
  settings.target_points = 10;
  settings.low_points = 5;
  return settings;
}

RebalancePod rebalance_pod(std::string name, std::string node, double price) {
  return {.name = "shop/" + name,
          .node = std::move(node),
          .workload = "shop/Deployment/web",
          .workload_pods = 3,
          .placed_ms = kHourAgo,
          .price = price};
}

// Points 70, 30, 20, 20: mean 35, over-utilised above 45, under-utilised at 30 or below (b, c,
// d); the coolest is c, with room for 25 points (2.5e7 bytes/s) before it reaches 45. Node a
// needs 25 points moved to come down to 45.
std::vector<RebalanceNode> one_hot_node() {
  return {{"a", 0.70, kSpeed}, {"b", 0.30, kSpeed}, {"c", 0.20, kSpeed}, {"d", 0.20, kSpeed}};
}

std::vector<std::string> nominated_pods(const std::vector<Nominee>& nominees) {
  std::vector<std::string> names;
  for (const auto& n : nominees) names.push_back(n.pod + "@" + n.node);
  return names;
}

TEST(RebalanceTarget, IsTheMeanOfTruncatedPointsPlusTheTarget) {
  EXPECT_DOUBLE_EQ(rebalance_target(one_hot_node(), absolute()), 45);
  // 45.9 and 10.99 read as 45 and 10: mean 27.5.
  EXPECT_DOUBLE_EQ(rebalance_target({{"a", 0.459, kSpeed}, {"b", 0.1099, kSpeed}}, absolute()),
                   37.5);
  EXPECT_DOUBLE_EQ(rebalance_target({{"a", 0.99, kSpeed}},
                                    {.figure = RebalanceFigure::absolute, .target_points = 20}),
                   100);
  EXPECT_DOUBLE_EQ(rebalance_target({}, absolute()), 0);
}

TEST(RebalanceFigure, RelativeIsEachOverTwiceTheMeanClampedAndTheMeanWhenIdle) {
  // Mean 0.25: 0.25 is at the mean (0.5), 0.75 is three times it (1.5, clamped).
  EXPECT_EQ(rebalance_figure({0.25, 0.75, 0, 0}, RebalanceFigure::relative),
            (std::vector<double>{0.5, 1, 0, 0}));
  EXPECT_EQ(rebalance_figure({0, 0}, RebalanceFigure::relative), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(rebalance_figure({0.25, 0.75}, RebalanceFigure::absolute),
            (std::vector<double>{0.25, 0.75}));
  EXPECT_TRUE(rebalance_figure({}, RebalanceFigure::relative).empty());
}

// A link counted above its speed: the utilisation clamps it to 1, the relative figure divides the
// load itself by its mean (1), not the clamped utilisations' (0.75, which would give 0.67 and
// 0.33).
TEST(RebalanceFigure, TheAbsoluteClampsTheLoadAndTheRelativeReadsItWhole) {
  EXPECT_EQ(rebalance_figure({1.5, 0.5}, RebalanceFigure::absolute), (std::vector<double>{1, 0.5}));
  EXPECT_EQ(rebalance_figure({1.5, 0.5}, RebalanceFigure::relative),
            (std::vector<double>{0.75, 0.25}));
}

// With max the relative figure reads the direction with the larger mean load: node c transmits
// 0.9 while it receives 0.1, and the others receive more than they transmit. Per node the busier
// side would hold a and b's receive to a mean c's transmit raised.
TEST(FigureDirection, TheRelativeFigureWithMaxReadsTheDirectionWithTheLargerMean) {
  const NodeUtilisation receive{{"a", 0.6}, {"b", 0.4}, {"c", 0.1}};     // mean 0.367
  const NodeUtilisation transmit{{"a", 0.05}, {"b", 0.05}, {"c", 0.9}};  // mean 0.333
  const auto relative = RebalanceFigure::relative;
  EXPECT_EQ(figure_direction(relative, Direction::max, receive, transmit), Direction::receive);
  EXPECT_EQ(figure_direction(relative, Direction::max, transmit, receive), Direction::transmit);
  // A tie, or a direction nobody measured.
  EXPECT_EQ(figure_direction(relative, Direction::max, receive, receive), Direction::receive);
  EXPECT_EQ(figure_direction(relative, Direction::max, {}, transmit), Direction::transmit);
  EXPECT_EQ(figure_direction(relative, Direction::max, receive, {}), Direction::receive);
  // The configured direction otherwise: the absolute figure is about a link's saturation, which
  // the busier side of each node is.
  EXPECT_EQ(figure_direction(RebalanceFigure::absolute, Direction::max, receive, transmit),
            Direction::max);
  EXPECT_EQ(figure_direction(relative, Direction::transmit, receive, transmit),
            Direction::transmit);
  EXPECT_EQ(figure_direction(relative, Direction::receive, transmit, receive), Direction::receive);
}

TEST(RebalanceTarget, RelativeIsInPointsOfTheRelativeFigure) {
  // Mean 0.15: figures 1 and three of 1/3, points 100, 33, 33, 33, their mean 49.75.
  const std::vector<RebalanceNode> nodes{
      {"a", 0.30, kSpeed}, {"b", 0.10, kSpeed}, {"c", 0.10, kSpeed}, {"d", 0.10, kSpeed}};
  EXPECT_DOUBLE_EQ(rebalance_target(nodes, {.target_points = 20}), 69.75);
}

// A quiet cluster (mean 16 %): a node at 1.5x the mean is 8 points over it, under absolute
// thresholds of 10 points; relative to the mean (thresholds 20 and 10 points) it is at 75 points
// (about 74.9 as doubles), over the target of 49.75 + 20 and the margin, and c and d at 37 points
// are under 49.75 - 10. The target as a utilisation is 69.75 / 50 x 0.16 = 0.2232: a needs 1.68e6
// bytes/s moved, and c has room for 1.032e7 before reaching it.
TEST(RebalanceNominate, RelativeThresholdsMoveAPodInAQuietCluster) {
  const std::vector<RebalanceNode> nodes{
      {"a", 0.24, kSpeed}, {"b", 0.16, kSpeed}, {"c", 0.12, kSpeed}, {"d", 0.12, kSpeed}};
  const std::vector<RebalancePod> pods{rebalance_pod("small", "a", 1e6),
                                       rebalance_pod("enough", "a", 2e6),
                                       rebalance_pod("big", "a", 1.2e7)};
  EXPECT_TRUE(nominate_evictions(nodes, pods, absolute(), kNow).empty());
  EXPECT_EQ(nominated_pods(
                nominate_evictions(nodes, pods, {.target_points = 20, .low_points = 10}, kNow)),
            std::vector<std::string>{"shop/enough@a"});
}

TEST(RebalanceNominate, TheCheapestPodThatBringsTheNodeToTheTarget) {
  const std::vector<RebalancePod> pods{
      rebalance_pod("big", "a", 3e7),       // would take c to 50 points: over the target
      rebalance_pod("enough", "a", 2.5e7),  // exactly the 25 points a needs
      rebalance_pod("more", "a", 2.6e7), rebalance_pod("small", "a", 1e7),
      rebalance_pod("cool", "c", 2e7)};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), pods, absolute(), kNow)),
            std::vector<std::string>{"shop/enough@a"});
}

TEST(RebalanceNominate, WhenNoneIsEnoughTheMoveThatLeavesTheBusierOfTheTwoLeastBusy) {
  // Moved to c (20 points): big leaves a at 40 and c at 50, middle a at 60, small a at 65; huge
  // would leave c at 70, as busy as a is now.
  const std::vector<RebalancePod> pods{
      rebalance_pod("huge", "a", 5e7), rebalance_pod("big", "a", 3e7),
      rebalance_pod("small", "a", 0.5e7), rebalance_pod("middle", "a", 1e7)};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), pods, absolute(), kNow)),
            std::vector<std::string>{"shop/big@a"});
  const std::vector<RebalancePod> without_big{pods[0], pods[2], pods[3]};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), without_big, absolute(), kNow)),
            std::vector<std::string>{"shop/middle@a"});
}

// Points 90, 30, 20, 20: mean 40, over-utilised above 50, hot above 53. A twin (35 points) moved
// to c leaves a at 55 and takes c to 55: two hot nodes instead of one, though the peak drops from
// 90. small (10 points) leaves a at 80 and c at 30: a cooler hot node, no new one.
TEST(RebalanceNominate, NoMoveThatLeavesTheNodeHotAndMakesTheCoolestHot) {
  const std::vector<RebalanceNode> nodes{
      {"a", 0.90, kSpeed}, {"b", 0.30, kSpeed}, {"c", 0.20, kSpeed}, {"d", 0.20, kSpeed}};
  const std::vector<RebalancePod> twins{rebalance_pod("twin-1", "a", 3.5e7),
                                        rebalance_pod("twin-2", "a", 3.5e7)};
  EXPECT_TRUE(nominate_evictions(nodes, twins, absolute(), kNow).empty());
  std::vector<RebalancePod> with_small = twins;
  with_small.push_back(rebalance_pod("small", "a", 1e7));
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, with_small, absolute(), kNow)),
            std::vector<std::string>{"shop/small@a"});
}

TEST(RebalanceNominate, NoPodWhoseMoveLeavesTheCoolestAsBusyAsTheNode) {
  const std::vector<RebalancePod> pods{rebalance_pod("huge", "a", 5e7),
                                       rebalance_pod("larger", "a", 6e7)};
  EXPECT_TRUE(nominate_evictions(one_hot_node(), pods, absolute(), kNow).empty());
}

TEST(RebalanceNominate, EqualPricesGoToTheLowerName) {
  const std::vector<RebalancePod> pods{rebalance_pod("y", "a", 2.5e7),
                                       rebalance_pod("x", "a", 2.5e7)};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), pods, absolute(), kNow)),
            std::vector<std::string>{"shop/x@a"});
}

TEST(RebalanceNominate, NothingWithoutAnUnderUtilisedNode) {
  // Points 41, 41, 41, 60: mean 45.75, under-utilised at 40.75 or below: none, so the
  // descheduler evicts nothing although d is above 55.75.
  const std::vector<RebalanceNode> nodes{
      {"a", 0.41, kSpeed}, {"b", 0.41, kSpeed}, {"c", 0.41, kSpeed}, {"d", 0.60, kSpeed}};
  EXPECT_TRUE(nominate_evictions(nodes, {rebalance_pod("p", "d", 1e6)}, absolute(), kNow).empty());
}

TEST(RebalanceNominate, OnePodPerNodeMoreThanTheMarginOverTheThresholdSortedByName) {
  // Points 70, 46, 44, 0, 0: mean 32, target 42, nominees above 44 (the margin of 2), low 27.
  const std::vector<RebalanceNode> nodes{{"a", 0.70, kSpeed},
                                         {"b", 0.46, kSpeed},
                                         {"c", 0.44, kSpeed},
                                         {"d", 0.0, kSpeed},
                                         {"e", 0.0, kSpeed}};
  // Room on d: 42 points. a needs 28 points; b needs 4, which neither of its pods moves, so the
  // dearer goes; c (44) is over the threshold but not by more than the margin.
  std::vector<RebalancePod> pods{rebalance_pod("a1", "a", 2.8e7), rebalance_pod("a2", "a", 2.9e7),
                                 rebalance_pod("b1", "b", 0.5e6), rebalance_pod("b2", "b", 2e6),
                                 rebalance_pod("c1", "c", 1e6),   rebalance_pod("d1", "d", 4e6)};
  for (auto& pod : pods) pod.workload = "shop/Deployment/" + pod.node;  // one workload per node
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            (std::vector<std::string>{"shop/a1@a", "shop/b2@b"}));
  // Without the margin c needs its 2 points too: its one pod goes.
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute({.margin_points = 0}), kNow)),
            (std::vector<std::string>{"shop/a1@a", "shop/b2@b", "shop/c1@c"}));
}

// Hysteresis: a node that gave up a pod at the last round is hot down to the threshold itself, so
// that evictions do not leave it hovering between the threshold and the margin.
TEST(RebalanceNominate, ACoolingNodeGivesUpPodsDownToTheThresholdItself) {
  // Points 70, 46, 44, 0, 0: mean 32, target 42, hot above 45 unless cooling. c (44) needs 2
  // points; its one pod (1) is not enough but leaves it at 43 and d at 1: the busier of the two
  // is below c now.
  std::vector<RebalanceNode> nodes{{"a", 0.70, kSpeed},
                                   {"b", 0.46, kSpeed},
                                   {"c", 0.44, kSpeed},
                                   {"d", 0.0, kSpeed},
                                   {"e", 0.0, kSpeed}};
  std::vector<RebalancePod> pods{rebalance_pod("a1", "a", 2.8e7), rebalance_pod("b2", "b", 2e6),
                                 rebalance_pod("c1", "c", 1e6)};
  for (auto& pod : pods) pod.workload = "shop/Deployment/" + pod.node;
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            (std::vector<std::string>{"shop/a1@a", "shop/b2@b"}));
  nodes[2].cooling = true;
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            (std::vector<std::string>{"shop/a1@a", "shop/b2@b", "shop/c1@c"}));
  // At 40 points c is under the threshold (points 70, 46, 40, 0, 0: target 41.2): cooled.
  nodes[2].utilisation = 0.40;
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            (std::vector<std::string>{"shop/a1@a", "shop/b2@b"}));
}

TEST(RebalanceNominate, AWorkloadGivesUpOnePodAtATimeToTheHottestNode) {
  // Points 60 (a), 70 (b) and four at 0: mean 21.67, target 31.67, low 16.67. The coolest (c) has
  // room for 31.67 points; a needs 28.33, b 38.33: neither pod is enough, and each node gives the
  // one whose move leaves it least busy.
  const std::vector<RebalanceNode> nodes{{"a", 0.60, kSpeed}, {"b", 0.70, kSpeed},
                                         {"c", 0.0, kSpeed},  {"d", 0.0, kSpeed},
                                         {"e", 0.0, kSpeed},  {"f", 0.0, kSpeed}};
  RebalancePod other = rebalance_pod("other", "a", 1e7);
  other.workload = "shop/StatefulSet/db";
  // web-b on b (the hottest) takes web; a's own web pod is then no candidate: the db pod goes.
  const std::vector<RebalancePod> pods{rebalance_pod("web-a", "a", 3e7),
                                       rebalance_pod("web-b", "b", 3e7), other};
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            (std::vector<std::string>{"shop/other@a", "shop/web-b@b"}));
}

TEST(RebalanceNominate, ALargerWorkloadGivesUpAQuarterOfItsPodsAtATime) {
  // Points 70 (a), 65 (b), 60 (g) and five at 0: mean 24.375 → 24, target 34. Each hot node holds
  // one pod of web, which has 8 pods: a quarter of them is 2, so the two hottest nodes give up
  // theirs and g keeps its own.
  const std::vector<RebalanceNode> nodes{
      {"a", 0.70, kSpeed}, {"b", 0.65, kSpeed}, {"c", 0.0, kSpeed},  {"d", 0.0, kSpeed},
      {"e", 0.0, kSpeed},  {"f", 0.0, kSpeed},  {"g", 0.60, kSpeed}, {"h", 0.0, kSpeed}};
  std::vector<RebalancePod> pods{rebalance_pod("web-a", "a", 3e7), rebalance_pod("web-b", "b", 3e7),
                                 rebalance_pod("web-g", "g", 3e7)};
  for (auto& pod : pods) pod.workload_pods = 8;
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            (std::vector<std::string>{"shop/web-a@a", "shop/web-b@b"}));
  // Seven pods: a quarter is 1.75, so one at a time.
  for (auto& pod : pods) pod.workload_pods = 7;
  EXPECT_EQ(nominated_pods(nominate_evictions(nodes, pods, absolute(), kNow)),
            std::vector<std::string>{"shop/web-a@a"});
  // The whole workload at once when the operator's policy allows it.
  EXPECT_EQ(
      nominated_pods(nominate_evictions(nodes, pods, absolute({.max_workload_share = 1}), kNow)),
      (std::vector<std::string>{"shop/web-a@a", "shop/web-b@b", "shop/web-g@g"}));
}

TEST(RebalanceNominate, UpToPerNodePodsWhileTheNodeStaysOverTheThreshold) {
  // one_hot_node: a needs 25 points. Three pods of 15 points, each of its own workload.
  std::vector<RebalancePod> pods{rebalance_pod("a1", "a", 1.5e7), rebalance_pod("a2", "a", 1.5e7),
                                 rebalance_pod("a3", "a", 1.5e7)};
  for (auto& pod : pods) pod.workload = "shop/Deployment/" + pod.name;
  EXPECT_EQ(
      nominated_pods(nominate_evictions(one_hot_node(), pods, absolute({.per_node = 1}), kNow)),
      std::vector<std::string>{"shop/a1@a"});
  // a1 leaves a at 55 (still over 47) and c at 35, so d (20) is the coolest; 10 more points bring
  // a to 45, and a 15-point pod fits d's 25 points of room. Then a is under the line: a third
  // choice is not made even where the policy allows it.
  const std::vector<std::string> two{"shop/a1@a", "shop/a2@a"};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), pods, absolute(), kNow)), two);
  EXPECT_EQ(
      nominated_pods(nominate_evictions(one_hot_node(), pods, absolute({.per_node = 3}), kNow)),
      two);
  // One pod that brings a down to the target is enough: no second.
  pods.front().price = 2.5e7;
  EXPECT_EQ(
      nominated_pods(nominate_evictions(one_hot_node(), pods, absolute({.per_node = 2}), kNow)),
      std::vector<std::string>{"shop/a1@a"});
}

TEST(RebalanceNominate, PodsWithoutAPriceAreNotChosen) {
  const std::vector<RebalancePod> pods{rebalance_pod("unknown", "a", -1),
                                       rebalance_pod("known", "a", 1e6)};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), pods, absolute(), kNow)),
            std::vector<std::string>{"shop/known@a"});
}

TEST(RebalanceEligible, FollowsTheEvictorsRules) {
  const RebalanceSettings settings{};
  const RebalancePod fine = rebalance_pod("p", "a", 1e6);
  EXPECT_TRUE(rebalance_eligible(fine, settings, kNow));

  RebalancePod statefulset = fine;
  statefulset.workload = "shop/StatefulSet/db";
  EXPECT_TRUE(rebalance_eligible(statefulset, settings, kNow));
  RebalancePod replicaset = fine;
  replicaset.workload = "shop/ReplicaSet/web-x";
  EXPECT_TRUE(rebalance_eligible(replicaset, settings, kNow));

  RebalancePod daemonset = fine;
  daemonset.workload = "shop/DaemonSet/agent";
  EXPECT_FALSE(rebalance_eligible(daemonset, settings, kNow));
  RebalancePod bare = fine;
  bare.workload = "shop/label/web";
  EXPECT_FALSE(rebalance_eligible(bare, settings, kNow));
  bare.workload.clear();
  EXPECT_FALSE(rebalance_eligible(bare, settings, kNow));
  RebalancePod host = fine;
  host.host_network = true;
  EXPECT_FALSE(rebalance_eligible(host, settings, kNow));
  RebalancePod single = fine;
  single.workload_pods = 1;
  EXPECT_FALSE(rebalance_eligible(single, settings, kNow));
  RebalancePod resting = fine;
  resting.resting = true;
  EXPECT_FALSE(rebalance_eligible(resting, settings, kNow));
  RebalancePod system = fine;
  system.name = "kube-system/p";
  EXPECT_FALSE(rebalance_eligible(system, settings, kNow));

  RebalancePod young = fine;
  young.placed_ms = kNow - settings.min_pod_age_ms + 1;
  EXPECT_FALSE(rebalance_eligible(young, settings, kNow));
  young.placed_ms = kNow - settings.min_pod_age_ms;
  EXPECT_TRUE(rebalance_eligible(young, settings, kNow));
  young.placed_ms = 0;  // start unknown: the evictor refuses a pod without a start time
  EXPECT_FALSE(rebalance_eligible(young, settings, kNow));
}

TEST(RebalanceNominate, IneligiblePodsAreSkipped) {
  RebalancePod young = rebalance_pod("young", "a", 2.5e7);
  young.placed_ms = kNow - 1000;
  const std::vector<RebalancePod> pods{young, rebalance_pod("old", "a", 1e7)};
  EXPECT_EQ(nominated_pods(nominate_evictions(one_hot_node(), pods, absolute(), kNow)),
            std::vector<std::string>{"shop/old@a"});
}

TEST(NominationMemory, AWorkloadWhoseNomineeLeftRestsForItsTime) {
  NominationMemory memory(60'000);
  std::vector<RebalancePod> pods{rebalance_pod("a1", "a", 1e7), rebalance_pod("b1", "b", 1e7)};
  memory.mark_resting(pods, kNow);
  EXPECT_FALSE(pods[0].resting);
  memory.remember({{.pod = "shop/a1", .node = "a"}}, pods);

  // Still there: nobody rests.
  memory.mark_resting(pods, kNow + 1000);
  EXPECT_FALSE(pods[1].resting);
  memory.remember({{.pod = "shop/a1", .node = "a"}}, pods);

  // Gone (evicted): its workload's other pods rest for the minute, then no longer.
  std::vector<RebalancePod> after{pods[1]};
  memory.mark_resting(after, kNow + 2000);
  EXPECT_TRUE(after[0].resting);
  memory.remember({}, after);
  memory.mark_resting(after, kNow + 2000 + 59'999);
  EXPECT_TRUE(after[0].resting);
  memory.mark_resting(after, kNow + 2000 + 60'000);
  EXPECT_FALSE(after[0].resting);
}

TEST(NominationMemory, ANomineeNoLongerChosenDoesNotMakeItsWorkloadRest) {
  NominationMemory memory(60'000);
  std::vector<RebalancePod> pods{rebalance_pod("a1", "a", 1e7), rebalance_pod("b1", "b", 1e7)};
  memory.remember({{.pod = "shop/a1", .node = "a"}}, pods);
  memory.remember({}, pods);
  std::vector<RebalancePod> after{pods[1]};
  memory.mark_resting(after, kNow);
  EXPECT_FALSE(after[0].resting);
}

TEST(NominationMemory, TheNodesTheLastRoundsNomineesCoolAreCooling) {
  NominationMemory memory(60'000);
  const std::vector<RebalancePod> pods{rebalance_pod("a1", "a", 1e7),
                                       rebalance_pod("b1", "b", 1e7)};
  std::vector<RebalanceNode> nodes = one_hot_node();
  memory.mark_cooling(nodes);
  for (const auto& node : nodes) EXPECT_FALSE(node.cooling) << node.name;

  memory.remember({{.pod = "shop/a1", .node = "a"}}, pods);
  memory.mark_cooling(nodes);
  EXPECT_TRUE(nodes[0].cooling);
  EXPECT_FALSE(nodes[1].cooling);

  // A round without a nominee on a ends its spell.
  memory.remember({{.pod = "shop/b1", .node = "b"}}, pods);
  memory.mark_cooling(nodes);
  EXPECT_FALSE(nodes[0].cooling);
  EXPECT_TRUE(nodes[1].cooling);
}

}  // namespace
}  // namespace netscore::model
