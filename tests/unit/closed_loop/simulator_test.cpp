// The closed loop in virtual time: with the shipped defaults netscore must keep node traffic far
// better balanced than spreading pods evenly, and close to an oracle that knows every pod's true
// traffic the moment it is bound. Fixed seeds of the standard workload; deterministic.
#include "bench/closed_loop/simulator.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

namespace netscore::sim {
namespace {

struct Outcome {
  RunResult baseline, defaults, oracle;
};

// `topology_spread`: whether kube-scheduler spreads a ReplicaSet itself (its default
// PodTopologySpread constraint applies only when it finds the ReplicaSet object).
Outcome run_seed(std::uint64_t seed, bool topology_spread) {
  WorkloadParams workload;
  workload.seed = seed;
  const Trace trace = generate_trace(workload);
  LoopParams loop;
  loop.topology_spread = topology_spread;
  Outcome out;
  for (const auto& policy : standard_policies()) {
    if (policy.kind == PolicyKind::fewest_pods) out.baseline = run_policy(trace, policy, loop);
    if (policy.kind == PolicyKind::oracle) out.oracle = run_policy(trace, policy, loop);
    if (policy.kind == PolicyKind::netscore && policy.env.empty())
      out.defaults = run_policy(trace, policy, loop);
  }
  return out;
}

class ClosedLoop : public ::testing::TestWithParam<std::tuple<std::uint64_t, bool>> {};

TEST_P(ClosedLoop, DefaultsBeatTheFewestPodsBaselineAndComeCloseToTheOracle) {
  const Outcome o = run_seed(std::get<0>(GetParam()), std::get<1>(GetParam()));
  ASSERT_EQ(o.defaults.policy, "netscore defaults");
  ASSERT_GT(o.baseline.balance.hot_node_seconds, 0);
  EXPECT_LE(o.defaults.balance.hot_node_seconds, 0.25 * o.baseline.balance.hot_node_seconds)
      << "defaults " << o.defaults.balance.hot_node_seconds << " baseline "
      << o.baseline.balance.hot_node_seconds;
  EXPECT_LT(o.defaults.balance.peak_to_mean, o.baseline.balance.peak_to_mean);
  EXPECT_LE(o.defaults.balance.peak_to_mean, o.oracle.balance.peak_to_mean + 0.10)
      << "defaults " << o.defaults.balance.peak_to_mean << " oracle "
      << o.oracle.balance.peak_to_mean;
}

INSTANTIATE_TEST_SUITE_P(StandardWorkload, ClosedLoop,
                         ::testing::Values(std::tuple{2U, true}, std::tuple{3U, true},
                                           std::tuple{4U, true}, std::tuple{2U, false},
                                           std::tuple{3U, false}),
                         [](const auto& param_info) {
                           return "seed" + std::to_string(std::get<0>(param_info.param)) +
                                  (std::get<1>(param_info.param) ? "_TopologySpread"
                                                                 : "_NoTopologySpread");
                         });

TEST(ClosedLoop, SameTraceAndPolicyGiveTheSameResult) {
  WorkloadParams workload;
  workload.duration_s = 300;
  const Trace trace = generate_trace(workload);
  const Policy defaults{.name = "netscore defaults"};
  const RunResult a = run_policy(trace, defaults, LoopParams{});
  const RunResult b = run_policy(trace, defaults, LoopParams{});
  EXPECT_EQ(a.balance.hot_node_seconds, b.balance.hot_node_seconds);
  EXPECT_EQ(a.balance.peak_to_mean, b.balance.peak_to_mean);
}

}  // namespace
}  // namespace netscore::sim
