// The closed loop in virtual time, the guards the default test run keeps: short traces that run
// the collector's and the extender's own code in a few seconds. The whole seeds are
// simulator_seeds_test (label sim). Deterministic.
#include "bench/closed_loop/virtual_time/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace netscore::sim {
namespace {

// The real harness creates the first pod only once netscore's table measures every node, so a pod
// created at the start of a trace is scored like any later one, not left to kube-scheduler's own
// plugins (which put it on the emptiest node, however busy its link).
TEST(ClosedLoopStart, EveryPodIsScoredOnAFreshTableFromTheFirstOn) {
  WorkloadParams workload;
  workload.seed = 56;
  workload.duration_s = 20;
  const Trace trace = generate_trace(workload);
  // A pod created within the first half second: before netscore's first refresh, had the loop
  // not waited for it.
  const auto first_create =
      std::find_if(trace.events.begin(), trace.events.end(),
                   [](const auto& e) { return e.kind == TraceEvent::Kind::create; });
  ASSERT_NE(first_create, trace.events.end());
  ASSERT_LT(first_create->t, 0.5);
  std::vector<Policy> policies;
  ASSERT_EQ(select_policies("netscore defaults", policies), "");
  const RunResult result = run_policy(trace, policies.at(0), LoopParams{});
  EXPECT_EQ(result.unscored_pods, 0U);
}

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

// The pods' own traffic, read where Prometheus has it, is more than netscore knows without it:
// reading it must not make placement worse. A trace of the churn regime (pods living a minute,
// rollouts every few seconds, heavy tails), where the reads once priced new pods at a fraction of
// their traffic.
TEST(PodSeriesInVirtualTime, ReadingThePodsOwnTrafficKeepsAChurningClusterCooler) {
  WorkloadParams workload;
  workload.seed = 3;
  ASSERT_EQ(apply_flag(workload, "scenario", "churn"), "");
  workload.duration_s = 600;
  const Trace trace = generate_trace(workload);
  const LoopParams loop;  // cAdvisor's series with the pods' namespace and name
  const RunResult read = run_policy(trace, Policy{.name = "netscore defaults"}, loop);
  const RunResult unread = run_policy(
      trace, Policy{.name = "no pod traffic", .env = {{"NETSCORE_POD_TRAFFIC", "false"}}}, loop);
  ASSERT_GT(unread.balance.hot_node_seconds, 0);
  EXPECT_LT(read.balance.hot_node_seconds, unread.balance.hot_node_seconds);
  EXPECT_LT(read.balance.peak_to_mean, unread.balance.peak_to_mean);
}

// The drift scenario's traffic changes after placement: the pods placed before it carry the new
// rates, so that nodes become hot that no placement made hot, and nothing does without the drift.
TEST(DriftInVirtualTime, RescaledPodsMakeHotNodesThatNoPlacementMade) {
  WorkloadParams workload;
  workload.seed = 1;  // its steady placement has no hot node (seed 3's has one all along)
  workload.nodes = 20;
  ASSERT_EQ(apply_flag(workload, "--scenario", "drift"), "");
  workload.duration_s = 240;
  WorkloadParams still = workload;
  still.drift_grow_fraction = 0;
  still.drift_shrink_fraction = 0;
  const LoopParams loop;
  const Policy* scheduler = nullptr;
  const auto policies = standard_policies();
  for (const auto& policy : policies) {
    if (policy.kind == PolicyKind::scheduler) scheduler = &policy;
  }
  ASSERT_NE(scheduler, nullptr);
  const RunResult drifted = run_policy(generate_trace(workload), *scheduler, loop);
  const RunResult steady = run_policy(generate_trace(still), *scheduler, loop);
  EXPECT_EQ(steady.balance.hot_node_seconds, 0);
  EXPECT_GT(drifted.balance.hot_node_seconds, 20);
  EXPECT_GT(drifted.balance.peak_to_mean, steady.balance.peak_to_mean + 0.2);
}

// The drift scenario on 20 nodes for 180 s, optionally without its drift.
WorkloadParams drift_workload(std::uint64_t seed, bool drift = true) {
  WorkloadParams workload;
  workload.seed = seed;
  workload.nodes = 20;
  EXPECT_EQ(apply_flag(workload, "--scenario", "drift"), "");
  workload.duration_s = 180;
  if (!drift) {
    workload.drift_grow_fraction = 0;
    workload.drift_shrink_fraction = 0;
  }
  return workload;
}

bool is_netscore_defaults(const Policy& policy) {
  return policy.kind == PolicyKind::netscore && policy.env.empty() && policy.weight == 0;
}

// The descheduler overlay modelled: with netscore nominating what it evicts, a drifted cluster
// cools well below netscore alone and below kube-scheduler alone with the same descheduler, one
// eviction per node per cycle, no pod moved twice, none put back on the node it left.
TEST(DriftInVirtualTime, TheDeschedulerEvictingNetscoresNomineesCoolsTheDriftedNodes) {
  const Trace trace = generate_trace(drift_workload(9));
  const Policy* scheduler = nullptr;
  const Policy* defaults = nullptr;
  const auto policies = standard_policies();
  for (const auto& policy : policies) {
    if (policy.kind == PolicyKind::scheduler) scheduler = &policy;
    if (is_netscore_defaults(policy)) defaults = &policy;
  }
  ASSERT_NE(scheduler, nullptr);
  ASSERT_NE(defaults, nullptr);
  LoopParams loop;
  const RunResult alone = run_policy(trace, *defaults, loop);
  EXPECT_FALSE(alone.evictions);
  loop.descheduler_interval_s = 150;
  const RunResult with = run_policy(trace, *defaults, loop);
  const RunResult scheduler_with = run_policy(trace, *scheduler, loop);
  ASSERT_TRUE(with.evictions);
  ASSERT_TRUE(scheduler_with.evictions);
  EXPECT_GT(with.evictions->evictions, 0u);
  EXPECT_LE(with.balance.hot_node_seconds, 0.3 * alone.balance.hot_node_seconds);
  EXPECT_LT(with.balance.hot_node_seconds, scheduler_with.balance.hot_node_seconds);
  EXPECT_EQ(with.evictions->max_per_node_per_cycle, 1u);
  EXPECT_EQ(with.evictions->pod_re_evictions, 0u);
  EXPECT_EQ(with.evictions->landed_back, 0u);
  EXPECT_EQ(with.evictions->landed, with.evictions->evictions);
}

// Seed 8's drift grows single pods past the hot line: the node-seconds hot wherever the pods had
// run are a bound that neither policy with the descheduler goes under.
TEST(DriftInVirtualTime, NoPolicyGoesUnderTheNodeSecondsHotWhereverThePodsRun) {
  const Trace trace = generate_trace(drift_workload(8));
  LoopParams loop;
  loop.descheduler_interval_s = 150;
  for (const auto& policy : standard_policies()) {
    if (policy.kind != PolicyKind::scheduler && policy.kind != PolicyKind::oracle &&
        !is_netscore_defaults(policy))
      continue;
    const RunResult run = run_policy(trace, policy, loop);
    ASSERT_TRUE(run.evictions) << policy.name;
    EXPECT_GT(run.evictions->unavoidable_hot_node_s, 50) << policy.name;
    EXPECT_LE(run.evictions->unavoidable_hot_node_s, run.balance.hot_node_seconds) << policy.name;
  }
}

// Without its drift the trace's busiest nodes sit near the descheduler's threshold (seeds 4 and 12
// put them a point over it from the start): no nominee there, so nothing is evicted where
// placement left no node hot. Seed 3's placement leaves one node hot from the start (1.6x the
// mean): a pod or two leave it, and it cools.
TEST(DriftInVirtualTime, WithoutTheDriftNothingIsEvictedWhereNoNodeIsHot) {
  const Policy* defaults = nullptr;
  const auto policies = standard_policies();
  for (const auto& policy : policies) {
    if (is_netscore_defaults(policy)) defaults = &policy;
  }
  ASSERT_NE(defaults, nullptr);
  LoopParams alone, with;
  with.descheduler_interval_s = 150;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Trace trace = generate_trace(drift_workload(seed, false));
    const RunResult placed = run_policy(trace, *defaults, alone);
    const RunResult run = run_policy(trace, *defaults, with);
    ASSERT_TRUE(run.evictions);
    if (seed != 3) {
      EXPECT_EQ(placed.balance.hot_node_seconds, 0) << "seed " << seed;
      EXPECT_EQ(run.evictions->evictions, 0u) << "seed " << seed;
      continue;
    }
    EXPECT_GT(placed.balance.hot_node_seconds, 100);
    // Two evictions cooled it while a replacement could go straight back to the node its pod
    // left (one did); with a nominee's traffic held on that node, four, none back; and a fifth
    // since a node that gave up a pod goes on down to the threshold (1.44x the mean), not to
    // just under 1.5x (the run's peak/mean 1.46 against 1.50).
    EXPECT_LE(run.evictions->evictions, 5u);
    EXPECT_EQ(run.evictions->landed_back, 0u);
    EXPECT_LT(run.balance.hot_node_seconds, 0.25 * placed.balance.hot_node_seconds);
  }
}

}  // namespace
}  // namespace netscore::sim
