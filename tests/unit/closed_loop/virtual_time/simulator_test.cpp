// The closed loop in virtual time: with the shipped defaults netscore must keep node traffic far
// better balanced than spreading pods evenly, and close to an oracle that knows every pod's true
// traffic the moment it is bound. Fixed seeds of the standard workload; deterministic.
#include "bench/closed_loop/virtual_time/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

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
    if (policy.kind == PolicyKind::netscore && policy.env.empty() && policy.weight == 0)
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

// Pods without an owner (CI runners, workflow pods), on the standard trace and on the CI-runner
// scenario (short, heavy pods created one by one): kube-scheduler spreads none of them, and
// without burst spreading every pod of a burst sees the same quietest node.
struct BareOutcome {
  RunResult scheduler, baseline, defaults, unspread;
};

BareOutcome run_bare(std::uint64_t seed, const char* scenario) {
  WorkloadParams workload;
  workload.seed = seed;
  EXPECT_EQ(apply_flag(workload, "scenario", scenario), "");
  EXPECT_EQ(apply_flag(workload, "bare-fraction", "1"), "");
  const Trace trace = generate_trace(workload);
  std::vector<Policy> policies;
  EXPECT_EQ(select_policies("kube-scheduler alone,fewest pods (baseline),netscore defaults,"
                            "defaults, no burst spreading",
                            policies),
            "");
  EXPECT_EQ(policies.size(), 4U);
  const LoopParams loop;
  return {run_policy(trace, policies.at(0), loop), run_policy(trace, policies.at(1), loop),
          run_policy(trace, policies.at(2), loop), run_policy(trace, policies.at(3), loop)};
}

class BareBursts : public ::testing::TestWithParam<std::tuple<std::uint64_t, const char*>> {};

TEST_P(BareBursts, DefaultsBeatTheSchedulerAloneAndTheFewestPodsBaseline) {
  const BareOutcome o = run_bare(std::get<0>(GetParam()), std::get<1>(GetParam()));
  ASSERT_EQ(o.defaults.policy, "netscore defaults");
  ASSERT_EQ(o.unspread.policy, "defaults, no burst spreading");
  for (const RunResult* other : {&o.scheduler, &o.baseline}) {
    EXPECT_LT(o.defaults.balance.hot_node_seconds, 0.75 * other->balance.hot_node_seconds)
        << other->policy;
    EXPECT_LT(o.defaults.balance.peak_to_mean, other->balance.peak_to_mean) << other->policy;
  }
  EXPECT_LT(o.defaults.bursts.mean_max_on_one_node, o.unspread.bursts.mean_max_on_one_node);
}

INSTANTIATE_TEST_SUITE_P(PodsWithoutOwner, BareBursts,
                         ::testing::Values(std::tuple{2U, "standard"}, std::tuple{3U, "standard"},
                                           std::tuple{4U, "standard"},
                                           std::tuple{2U, "bare-bursts"}),
                         [](const auto& param_info) {
                           std::string name = std::get<1>(param_info.param);
                           std::erase(name, '-');
                           return name + "_seed" + std::to_string(std::get<0>(param_info.param));
                         });

// The heterogeneous scenario's trace for `seed`, its slow links at `slow_speed_factor` of the
// others, run through the named policies.
std::vector<RunResult> run_heterogeneous_policies(std::uint64_t seed,
                                                  std::string_view slow_speed_factor,
                                                  const LoopParams& loop, std::string_view names) {
  WorkloadParams workload;
  workload.seed = seed;
  EXPECT_EQ(apply_flag(workload, "scenario", "heterogeneous"), "");
  EXPECT_EQ(apply_flag(workload, "slow-speed-factor", slow_speed_factor), "");
  const Trace trace = generate_trace(workload);
  std::vector<Policy> policies;
  EXPECT_EQ(select_policies(names, policies), "");
  std::vector<RunResult> results;
  for (const auto& policy : policies) results.push_back(run_policy(trace, policy, loop));
  return results;
}

// The heterogeneous scenario (a third of the nodes on links a tenth as fast, receive- and
// transmit-heavy deployments): what it is built to show, and that scoring utilisation in the busier
// direction beats scoring bytes there. Hot link-seconds: links above 0.8 of their speed.
struct LinkOutcome {
  RunResult scheduler, raw_receive, utilisation_max, oracle, utilisation_oracle;
};

LinkOutcome run_heterogeneous(std::uint64_t seed, bool topology_spread) {
  LoopParams loop;
  loop.topology_spread = topology_spread;
  std::vector<RunResult> results =
      run_heterogeneous_policies(seed, "0.1", loop,
                                 "kube-scheduler alone,raw, receive (previous defaults),"
                                 "utilisation, max (netscore defaults),oracle,utilisation oracle");
  EXPECT_EQ(results.size(), 5U);
  results.resize(5);
  return {results[0], results[1], results[2], results[3], results[4]};
}

class HeterogeneousLinks : public ::testing::TestWithParam<std::tuple<std::uint64_t, bool>> {};

TEST_P(HeterogeneousLinks, UtilisationAwarePlacementKeepsLinksCoolerThanBytes) {
  const LinkOutcome o = run_heterogeneous(std::get<0>(GetParam()), std::get<1>(GetParam()));
  ASSERT_EQ(o.utilisation_max.policy, "utilisation, max (netscore defaults)");
  const double scheduler = o.scheduler.balance.hot_link_seconds;
  ASSERT_GT(scheduler, 0);
  // The scenario: placing by utilisation can keep the links cool, balancing bytes cannot.
  EXPECT_LE(o.utilisation_oracle.balance.hot_link_seconds, 0.25 * scheduler);
  EXPECT_GE(o.oracle.balance.hot_link_seconds, 0.75 * scheduler);
  // The defaults, utilisation in the busier direction at the shipped weight, keep a quarter of
  // the scheduler's hot link-seconds at most, where scoring received bytes makes them worse.
  EXPECT_LT(o.utilisation_max.balance.hot_link_seconds, o.raw_receive.balance.hot_link_seconds);
  EXPECT_LE(o.utilisation_max.balance.hot_link_seconds, 0.25 * scheduler)
      << "utilisation, max " << o.utilisation_max.balance.hot_link_seconds << " scheduler "
      << scheduler;
  EXPECT_LT(o.utilisation_max.balance.mean_peak_utilisation,
            o.scheduler.balance.mean_peak_utilisation);
}

// On equal links the direction decides: half the deployments fill the transmit side, which
// scoring received traffic alone leaves to chance.
TEST(EqualLinks, TheBusierDirectionKeepsTransmitHeavyPodsApart) {
  const auto results = run_heterogeneous_policies(
      2, "1", LoopParams{},
      "kube-scheduler alone,utilisation, receive,utilisation, max (netscore defaults)");
  ASSERT_EQ(results.size(), 3U);
  std::vector<double> hot;
  for (const auto& result : results) hot.push_back(result.balance.hot_link_seconds);
  ASSERT_GT(hot[0], 0);
  EXPECT_LT(hot[2], 0.75 * hot[0]) << "busier direction against kube-scheduler alone";
  EXPECT_LT(hot[2], 0.5 * hot[1]) << "busier direction against receive only";
}

INSTANTIATE_TEST_SUITE_P(HeterogeneousScenario, HeterogeneousLinks,
                         ::testing::Values(std::tuple{2U, true}, std::tuple{3U, false}),
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

// CI runners of 12 projects, with and without their project label, with and without per-pod
// series: without workload learning and burst spreading the identity reaches the price only
// through the pods' measured traffic, so without the series the label changes nothing; burst
// spreading keys a labelled burst by it.
RunResult run_runners(const char* scenario, PodSeries series,
                      const Policy& policy = Policy{.name = "netscore defaults"}) {
  WorkloadParams workload;
  workload.seed = 5;
  workload.duration_s = 900;
  EXPECT_EQ(apply_flag(workload, "scenario", scenario), "");
  LoopParams loop;
  loop.pod_series = series;
  return run_policy(generate_trace(workload), policy, loop);
}

bool same_run(const RunResult& a, const RunResult& b) {
  return a.balance.hot_node_seconds == b.balance.hot_node_seconds &&
         a.balance.peak_to_mean == b.balance.peak_to_mean && a.peak_to_mean == b.peak_to_mean;
}

TEST(PodSeriesInVirtualTime, TheProjectLabelCountsOnlyThroughMeasuredTrafficAndBurstSpreading) {
  const Policy unspread{
      .name = "no learning, no spreading",
      .env = {{"NETSCORE_LEARN_WORKLOADS", "false"}, {"NETSCORE_SPREAD_WINDOW", "0"}}};
  EXPECT_TRUE(same_run(run_runners("ci-runners", PodSeries::none, unspread),
                       run_runners("ci-runners-labelled", PodSeries::none, unspread)));
  const Policy unlearned{.name = "no learning", .env = {{"NETSCORE_LEARN_WORKLOADS", "false"}}};
  EXPECT_FALSE(same_run(run_runners("ci-runners", PodSeries::none, unlearned),
                        run_runners("ci-runners-labelled", PodSeries::none, unlearned)))
      << "a labelled burst is spread two pods per node";
  const RunResult plain_off = run_runners("ci-runners", PodSeries::none);
  const RunResult plain_on = run_runners("ci-runners", PodSeries::cadvisor);
  const RunResult labelled_on = run_runners("ci-runners-labelled", PodSeries::cadvisor);
  EXPECT_FALSE(same_run(plain_off, plain_on)) << "the pods' own traffic changes placements";
  EXPECT_FALSE(same_run(plain_on, labelled_on)) << "a project's measured mean prices its runners";
  // Unlabelled series, as runtimes that fill no pod labels: the collector reads nothing.
  EXPECT_TRUE(same_run(plain_off, run_runners("ci-runners", PodSeries::unlabelled)));
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
// eviction per node per cycle, no pod moved twice, none put back on a hot node it left.
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
  EXPECT_EQ(with.evictions->landed_back_hot, 0u);
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
// put them a point over it from the start): no nominee there, so nothing is evicted.
TEST(DriftInVirtualTime, WithoutTheDriftNothingIsEvicted) {
  const Policy* defaults = nullptr;
  const auto policies = standard_policies();
  for (const auto& policy : policies) {
    if (is_netscore_defaults(policy)) defaults = &policy;
  }
  ASSERT_NE(defaults, nullptr);
  LoopParams loop;
  loop.descheduler_interval_s = 150;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const RunResult run = run_policy(generate_trace(drift_workload(seed, false)), *defaults, loop);
    ASSERT_TRUE(run.evictions);
    EXPECT_EQ(run.evictions->evictions, 0u) << "seed " << seed;
  }
}

}  // namespace
}  // namespace netscore::sim
