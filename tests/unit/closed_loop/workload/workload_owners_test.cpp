// Pods of owner kinds other than a ReplicaSet, bursts created one by one, and the scenarios made
// of them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "bench/closed_loop/reports/balance_metrics.h"
#include "bench/closed_loop/workload/workload.h"

namespace netscore::sim {
namespace {

constexpr std::string_view kNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

WorkloadParams scenario(std::string_view name, std::uint64_t seed = 1) {
  WorkloadParams params;
  params.seed = seed;
  EXPECT_EQ(apply_flag(params, "--scenario", name), "");
  return params;
}

// A DNS-1123 label, as a pod's name must be.
bool dns_label(const std::string& name) {
  if (name.empty() || name.size() > 63 || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// Pods alive per node at every whole second of [0, duration), averaged.
double pods_per_node(const Trace& trace) {
  const auto seconds = static_cast<std::size_t>(trace.params.duration_s);
  std::vector<long> delta(seconds + 1, 0);
  for (const auto& pod : trace.pods) {
    const auto from = static_cast<std::size_t>(std::max(0.0, std::ceil(pod.created_s)));
    const auto to =
        static_cast<std::size_t>(std::min(static_cast<double>(seconds), std::ceil(pod.deleted_s)));
    if (to <= from) continue;
    ++delta[from];
    --delta[to];
  }
  double alive = 0, total = 0;
  for (std::size_t s = 0; s < seconds; ++s) total += alive += static_cast<double>(delta[s]);
  return total / static_cast<double>(seconds) / trace.params.nodes;
}

// Each burst's create events in trace order.
std::map<std::uint32_t, std::vector<const TraceEvent*>> creates_by_burst(const Trace& trace) {
  std::map<std::uint32_t, std::vector<const TraceEvent*>> bursts;
  for (const auto& event : trace.events) {
    if (event.kind == TraceEvent::Kind::create) {
      bursts[trace.pods[event.pods.front()].burst].push_back(&event);
    }
  }
  return bursts;
}

TEST(WorkloadOwnersTest, OwnerKindsHaveTheirShares) {
  WorkloadParams params;
  params.duration_s = 4 * 3600;
  params.bare_fraction = 0.3;
  params.statefulset_fraction = 0.2;
  params.job_fraction = 0.25;
  ASSERT_EQ(validate(params), "");
  const auto trace = generate_trace(params);
  ASSERT_GT(trace.deployments.size(), 2000U);
  std::map<OwnerKind, double> count;
  for (const auto& workload : trace.deployments) ++count[workload.kind];
  const auto all = static_cast<double>(trace.deployments.size());
  const double owned = all - count[OwnerKind::none];
  EXPECT_NEAR(count[OwnerKind::none] / all, 0.3, 0.04);
  EXPECT_NEAR(count[OwnerKind::statefulset] / owned, 0.2, 0.04);
  EXPECT_NEAR(count[OwnerKind::job] / owned, 0.25, 0.04);
  EXPECT_NEAR(count[OwnerKind::replicaset] / owned, 0.55, 0.04);
  for (const auto& pod : trace.pods) {
    EXPECT_EQ(pod.owner_kind, trace.deployments[pod.deployment].kind) << pod.name;
  }
}

TEST(WorkloadOwnersTest, PodsAreNamedAsTheirOwnersControllerNamesThem) {
  const auto trace = generate_trace(scenario("mixed-owners"));
  std::set<std::string> names;
  std::map<std::uint32_t, std::uint32_t> ordinals;  // per StatefulSet, the next
  std::map<OwnerKind, unsigned> pods;
  for (const auto& pod : trace.pods) {
    const auto& owner = trace.deployments[pod.deployment].name;
    ++pods[pod.owner_kind];
    EXPECT_TRUE(dns_label(pod.name)) << pod.name;
    EXPECT_TRUE(names.insert(pod.name).second) << "duplicate " << pod.name;
    if (pod.owner_kind == OwnerKind::replicaset) {
      EXPECT_EQ(pod.replicaset, owner + "-" + pod.template_hash);
      EXPECT_EQ(pod.template_hash.size(), 10U);
    } else {
      EXPECT_EQ(pod.replicaset, owner) << "the owner's or the group's name";
      EXPECT_EQ(pod.template_hash, "") << "only a ReplicaSet's pods have one";
    }
    if (pod.owner_kind == OwnerKind::statefulset) {
      EXPECT_EQ(pod.name, owner + "-" + std::to_string(ordinals[pod.deployment]++))
          << "ordinals in creation order";
      continue;
    }
    ASSERT_EQ(pod.name.size(), pod.replicaset.size() + 6) << pod.name;
    EXPECT_EQ(pod.name.substr(0, pod.replicaset.size() + 1), pod.replicaset + "-");
    EXPECT_EQ(pod.name.find_first_not_of(kNameAlphabet, pod.replicaset.size() + 1),
              std::string::npos);
  }
  for (const auto kind :
       {OwnerKind::replicaset, OwnerKind::statefulset, OwnerKind::job, OwnerKind::none}) {
    EXPECT_GT(pods[kind], 100U) << static_cast<int>(kind);
  }
}

// A workload other than a Deployment never replaces a pod: all its pods go when it ends. Any kind
// scales up: some have several bursts.
TEST(WorkloadOwnersTest, OnlyDeploymentsRollAndEveryKindScalesUp) {
  auto params = scenario("mixed-owners");
  params.duration_s = 3600;
  params.rolling_update_rate = 1.0 / 60;
  params.scale_up_rate = 1.0 / 120;
  const auto trace = generate_trace(params);
  std::vector<std::set<double>> deletions(trace.deployments.size());
  std::vector<std::set<std::uint32_t>> bursts(trace.deployments.size());
  for (const auto& pod : trace.pods) {
    deletions[pod.deployment].insert(pod.deleted_s);
    if (pod.burst != kInitialBurst) bursts[pod.deployment].insert(pod.burst);
  }
  std::map<OwnerKind, unsigned> rolled, scaled;
  for (std::size_t w = 0; w < trace.deployments.size(); ++w) {
    const auto kind = trace.deployments[w].kind;
    if (deletions[w].size() > 1) ++rolled[kind];
    if (bursts[w].size() > 1) ++scaled[kind];
  }
  EXPECT_GT(rolled[OwnerKind::replicaset], 50U);
  for (const auto kind : {OwnerKind::statefulset, OwnerKind::job, OwnerKind::none}) {
    EXPECT_EQ(rolled[kind], 0U) << static_cast<int>(kind);
    EXPECT_GT(scaled[kind], 5U) << static_cast<int>(kind);
  }
}

TEST(WorkloadOwnersTest, ABurstSpreadOverTimeIsOneCreatePerPodWithinTheSpan) {
  auto params = scenario("standard");
  params.create_spread_s = 3;
  const auto trace = generate_trace(params);
  const auto bursts = creates_by_burst(trace);
  unsigned spread_whole = 0;
  for (const auto& [burst, creates] : bursts) {
    const double first = creates.front()->t;
    for (std::size_t i = 0; i < creates.size(); ++i) {
      ASSERT_EQ(creates[i]->pods.size(), 1U) << "one pod per create";
      const auto& pod = trace.pods[creates[i]->pods.front()];
      EXPECT_EQ(pod.created_s, creates[i]->t);
      EXPECT_LT(pod.created_s, pod.deleted_s);
      EXPECT_LT(creates[i]->t, first + params.create_spread_s);
      if (i > 0) {
        EXPECT_GT(creates[i]->t, creates[i - 1]->t) << "one by one, in order";
        EXPECT_GT(pod.id, creates[i - 1]->pods.front());
        const auto& previous = trace.pods[creates[i - 1]->pods.front()];
        EXPECT_EQ(pod.deployment, previous.deployment);
        EXPECT_EQ(pod.replicaset, previous.replicaset);
      }
    }
    // Evenly over the whole span unless cut short by the workload's or the trace's end (or
    // begun before t = 0).
    const auto k = static_cast<double>(creates.size());
    const auto& last = trace.pods[creates.back()->pods.front()];
    if (k >= 2 && first >= params.create_spread_s &&
        first + params.create_spread_s < params.duration_s &&
        last.deleted_s > first + params.create_spread_s) {
      EXPECT_NEAR(creates.back()->t - first, params.create_spread_s * (k - 1) / k, 1e-9);
      ++spread_whole;
    }
  }
  EXPECT_GT(spread_whole, 100U);
}

// burst_spread counts a burst's pods together though each was its own create event.
TEST(WorkloadOwnersTest, BurstSpreadGroupsABurstCreatedOneByOne) {
  auto params = scenario("bare-bursts");
  params.duration_s = 600;
  const auto trace = generate_trace(params);
  std::map<std::uint32_t, unsigned> sizes;
  for (const auto& pod : trace.pods) {
    if (pod.burst != kInitialBurst) ++sizes[pod.burst];
  }
  unsigned largest = 0, multi = 0;
  for (const auto& [burst, size] : sizes) {
    largest = std::max(largest, size);
    multi += size >= 2 ? 1 : 0;
  }
  ASSERT_GE(largest, 20U);
  for (const auto& event : trace.events) ASSERT_EQ(event.pods.size(), 1U);
  const auto on_one = burst_spread(trace, std::vector<int>(trace.pods.size(), 0));
  EXPECT_EQ(on_one.bursts, multi);
  EXPECT_EQ(on_one.max_on_one_node, largest);
  // Each burst round robin over 4 nodes: a burst of k has ceil(k / 4) on one node.
  std::vector<int> round_robin(trace.pods.size(), -1);
  std::map<std::uint32_t, int> placed;
  for (const auto& pod : trace.pods) {
    if (pod.burst != kInitialBurst) round_robin[pod.id] = placed[pod.burst]++ % 4;
  }
  EXPECT_EQ(burst_spread(trace, round_robin).max_on_one_node, (largest + 3) / 4);
}

TEST(WorkloadOwnersTest, BareBurstsAreShortLivedCiRunnersCreatedOneByOne) {
  const auto params = scenario("bare-bursts");
  EXPECT_EQ(validate(params), "");
  EXPECT_EQ(params.bare_fraction, 1);
  EXPECT_EQ(params.create_spread_s, 2);
  EXPECT_EQ(params.deployment_lifetime_mean_s, 60);
  EXPECT_GT(params.deployment_rate_median, WorkloadParams{}.deployment_rate_median);
  const auto trace = generate_trace(params);
  double lifetimes = 0, ended = 0;
  for (const auto& pod : trace.pods) {
    ASSERT_EQ(pod.owner_kind, OwnerKind::none) << pod.name;
    if (pod.created_s >= 0 && std::isfinite(pod.deleted_s)) {
      lifetimes += pod.deleted_s - pod.created_s;
      ++ended;
    }
  }
  ASSERT_GT(ended, 1000);
  // A pod lives a minute on average, but more of them belong to pipelines that last longer.
  EXPECT_LT(lifetimes / ended, 150);
  EXPECT_GT(lifetimes / ended, 40);
  for (const auto& [burst, creates] : creates_by_burst(trace)) {
    EXPECT_LT(creates.back()->t - creates.front()->t, 2);
  }
}

// The cluster holds as many pods as the standard scenario's, whatever the owners and lifetimes:
// the arrival rate follows from the workloads' expected pod-seconds.
TEST(WorkloadOwnersTest, ScenariosKeepTheStandardPodsPerNode) {
  for (const auto* name : {"bare-bursts", "mixed-owners"}) {
    double sum = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      auto params = scenario(name, seed);
      params.duration_s = 2 * 3600;
      sum += pods_per_node(generate_trace(params));
    }
    EXPECT_NEAR(sum / 4, 12.5, 12.5 * 0.1) << name;
  }
}

TEST(WorkloadOwnersTest, ScenariosSetTheirParametersAndLaterFlagsOverride) {
  auto params = scenario("mixed-owners");
  EXPECT_EQ(validate(params), "");
  EXPECT_EQ(params.bare_fraction, 0.2);
  EXPECT_EQ(params.statefulset_fraction, 0.15);
  EXPECT_EQ(params.job_fraction, 0.25);
  EXPECT_EQ(params.create_spread_s, 0) << "sets only what it names";
  EXPECT_EQ(apply_flag(params, "--scenario", "bare-bursts"), "");
  EXPECT_EQ(params.statefulset_fraction, 0.15) << "sets only what it names";
  EXPECT_EQ(apply_flag(params, "--create-spread-s", "0.5"), "");
  EXPECT_EQ(params.create_spread_s, 0.5);
  EXPECT_EQ(apply_flag(params, "--scenario", "standard"), "");
  EXPECT_EQ(params.bare_fraction, 0);
  EXPECT_EQ(params.statefulset_fraction, 0);
  EXPECT_EQ(params.create_spread_s, 0);
  EXPECT_EQ(params.deployment_lifetime_mean_s, WorkloadParams{}.deployment_lifetime_mean_s);
  EXPECT_EQ(params.replicas_max, WorkloadParams{}.replicas_max);
  const auto help = workload_help();
  for (const auto* text :
       {"bare-bursts", "mixed-owners", "--bare-fraction=0 ", "--statefulset-fraction=0 ",
        "--job-fraction=0 ", "--create-spread-s=0 "}) {
    EXPECT_NE(help.find(text), std::string::npos) << text;
  }
}

TEST(WorkloadOwnersTest, FlagsParseAndBadValuesNameTheirFlag) {
  WorkloadParams params;
  EXPECT_EQ(apply_flag(params, "--bare-fraction", "0.4"), "");
  EXPECT_EQ(apply_flag(params, "--statefulset-fraction", "0.1"), "");
  EXPECT_EQ(apply_flag(params, "--job-fraction", "0.3"), "");
  EXPECT_EQ(apply_flag(params, "--create-spread-s", "1.5"), "");
  EXPECT_EQ(params.bare_fraction, 0.4);
  EXPECT_EQ(params.statefulset_fraction, 0.1);
  EXPECT_EQ(params.job_fraction, 0.3);
  EXPECT_EQ(params.create_spread_s, 1.5);
  EXPECT_EQ(validate(params), "");
  for (const auto* flag :
       {"bare-fraction", "statefulset-fraction", "job-fraction", "create-spread-s"}) {
    EXPECT_NE(apply_flag(params, flag, "half").find(flag), std::string::npos) << flag;
    EXPECT_NE(apply_flag(params, flag, "nan").find(flag), std::string::npos) << flag;
  }
  EXPECT_EQ(params.bare_fraction, 0.4) << "a bad value changes nothing";

  auto bad = [](auto change) {
    WorkloadParams p;
    change(p);
    return validate(p);
  };
  EXPECT_NE(bad([](auto& p) { p.bare_fraction = 1.5; }).find("bare_fraction"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.bare_fraction = -0.1; }).find("bare_fraction"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.statefulset_fraction = 2; }).find("statefulset_fraction"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.job_fraction = -1; }).find("job_fraction"), std::string::npos);
  EXPECT_NE(bad([](auto& p) {
              p.statefulset_fraction = 0.6;
              p.job_fraction = 0.5;
            }).find("job_fraction"),
            std::string::npos)
      << "StatefulSets and Jobs share the workloads with an owner";
  EXPECT_NE(bad([](auto& p) { p.create_spread_s = -1; }).find("create_spread_s"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.create_spread_s = INFINITY; }).find("create_spread_s"),
            std::string::npos);
  EXPECT_EQ(bad([](auto& p) {
              p.bare_fraction = 1;
              p.statefulset_fraction = 1;
            }),
            "");
}

}  // namespace
}  // namespace netscore::sim
