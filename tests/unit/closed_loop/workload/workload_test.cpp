#include "bench/closed_loop/workload/workload.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

bool same(const Trace& a, const Trace& b) {
  if (a.background != b.background || a.counter_start != b.counter_start ||
      a.node_names != b.node_names || a.initial_pods != b.initial_pods ||
      a.deployments.size() != b.deployments.size() || a.pods.size() != b.pods.size() ||
      a.events.size() != b.events.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.deployments.size(); ++i) {
    if (a.deployments[i].name != b.deployments[i].name ||
        a.deployments[i].level != b.deployments[i].level) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.pods.size(); ++i) {
    const auto &x = a.pods[i], &y = b.pods[i];
    if (x.id != y.id || x.ns != y.ns || x.name != y.name || x.deployment != y.deployment ||
        x.replicaset != y.replicaset || x.template_hash != y.template_hash || x.burst != y.burst ||
        x.rate != y.rate || x.created_s != y.created_s || x.deleted_s != y.deleted_s) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    if (a.events[i].t != b.events[i].t || a.events[i].kind != b.events[i].kind ||
        a.events[i].pods != b.events[i].pods) {
      return false;
    }
  }
  return true;
}

// Pods alive (created, not deleted) at every whole second of [0, duration), summed.
double pod_seconds_sampled(const Trace& trace) {
  const auto seconds = static_cast<long>(trace.params.duration_s);
  std::vector<long> delta(static_cast<std::size_t>(seconds) + 1, 0);
  for (const auto& pod : trace.pods) {
    const long from = std::max(0L, static_cast<long>(std::ceil(pod.created_s)));
    const long to = std::min(seconds, static_cast<long>(std::ceil(pod.deleted_s)));
    if (to <= from) continue;
    ++delta[static_cast<std::size_t>(from)];
    --delta[static_cast<std::size_t>(to)];
  }
  double alive = 0, total = 0;
  for (long s = 0; s < seconds; ++s) total += alive += static_cast<double>(delta[s]);
  return total;
}

TEST(WorkloadTest, DefaultsAreValid) {
  EXPECT_EQ(validate(WorkloadParams{}), "");
}

TEST(WorkloadTest, SameSeedSameTraceAndAnotherSeedAnother) {
  WorkloadParams params;
  params.seed = 7;
  const auto a = generate_trace(params);
  EXPECT_TRUE(same(a, generate_trace(params)));
  params.seed = 8;
  const auto b = generate_trace(params);
  EXPECT_FALSE(same(a, b));
  EXPECT_NE(a.background, b.background);
  EXPECT_NE(a.pods.front().name, b.pods.front().name);
}

TEST(WorkloadTest, NodesAreNamedInIndexOrderWithCountersOfTheirDaysSinceBoot) {
  WorkloadParams params;
  const auto trace = generate_trace(params);
  ASSERT_EQ(trace.node_names.size(), 30U);
  EXPECT_EQ(trace.node_names.front(), "node-00");
  EXPECT_EQ(trace.node_names[7], "node-07");
  EXPECT_EQ(trace.node_names.back(), "node-29");
  EXPECT_TRUE(std::is_sorted(trace.node_names.begin(), trace.node_names.end()));
  ASSERT_EQ(trace.background.size(), 30U);
  for (std::size_t n = 0; n < 30; ++n) {
    const double days = trace.counter_start[n] / 86400 / trace.background[n];
    EXPECT_GE(days, 1);
    EXPECT_LE(days, 30);
  }
  params.nodes = 120;
  const auto big = generate_trace(params);
  EXPECT_EQ(big.node_names.front(), "node-000");
  EXPECT_EQ(big.node_names.back(), "node-119");
}

// Long runs of several seeds: one 30-minute run's mean swings by about 20% (a deployment of 30
// replicas that scales up is a few percent of the cluster on its own).
TEST(WorkloadTest, PodsPerNodeMeanIsTheTarget) {
  double pod_seconds = 0, node_seconds = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    WorkloadParams params;
    params.seed = seed;
    params.duration_s = 4 * 3600;
    const auto trace = generate_trace(params);
    pod_seconds += pod_seconds_sampled(trace);
    node_seconds += params.nodes * params.duration_s;
  }
  EXPECT_NEAR(pod_seconds / node_seconds, 12.5, 12.5 * 0.15);
  // Another target, fewer nodes: the arrival rate follows.
  pod_seconds = node_seconds = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    WorkloadParams params;
    params.seed = seed;
    params.nodes = 10;
    params.pods_per_node = 40;
    params.duration_s = 4 * 3600;
    const auto trace = generate_trace(params);
    pod_seconds += pod_seconds_sampled(trace);
    node_seconds += params.nodes * params.duration_s;
  }
  EXPECT_NEAR(pod_seconds / node_seconds, 40, 40 * 0.15);
}

TEST(WorkloadTest, TheClusterStartsPopulated) {
  double at_start = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    WorkloadParams params;
    params.seed = seed;
    const auto trace = generate_trace(params);
    at_start += static_cast<double>(trace.initial_pods.size());
    for (const auto id : trace.initial_pods) {
      const auto& pod = trace.pods[id];
      EXPECT_LT(pod.created_s, 0);
      EXPECT_GT(pod.deleted_s, 0);
      EXPECT_EQ(pod.burst, kInitialBurst);
    }
  }
  EXPECT_NEAR(at_start / 20 / 30, 12.5, 12.5 * 0.15);
}

// The first burst of every deployment that arrives during the run.
std::vector<std::size_t> new_deployment_bursts(const Trace& trace) {
  std::vector<bool> seen(trace.deployments.size(), false);
  for (const auto id : trace.initial_pods) seen[trace.pods[id].deployment] = true;
  std::vector<std::size_t> sizes;
  for (const auto& event : trace.events) {
    if (event.kind != TraceEvent::Kind::create) continue;
    const auto deployment = trace.pods[event.pods.front()].deployment;
    if (!seen[deployment]) sizes.push_back(event.pods.size());
    seen[deployment] = true;
  }
  return sizes;
}

TEST(WorkloadTest, NewDeploymentsHaveZipfReplicasWithinBounds) {
  WorkloadParams params;
  params.duration_s = 4 * 3600;
  const auto sizes = new_deployment_bursts(generate_trace(params));
  ASSERT_GT(sizes.size(), 2000U);
  std::map<std::size_t, double> share;
  for (const auto size : sizes) share[size] += 1.0 / static_cast<double>(sizes.size());
  EXPECT_GE(share.begin()->first, 1U);
  EXPECT_EQ(share.rbegin()->first, 30U) << "the largest burst happens in a long run";
  // P(1) = 1 / H and P(2) = 2^-1.5 / H, H = sum of k^-1.5 for k = 1..30 = 2.25016.
  EXPECT_NEAR(share[1], 0.4444, 0.04);
  EXPECT_NEAR(share[2], 0.1571, 0.03);

  params.replicas_min = 3;
  params.replicas_max = 7;
  params.replicas_zipf_exponent = 0;
  params.duration_s = 1800;
  for (const auto size : new_deployment_bursts(generate_trace(params))) {
    EXPECT_GE(size, 3U);
    EXPECT_LE(size, 7U);
  }
}

TEST(WorkloadTest, EveryPodIsCreatedOnceAndRemovedAtMostOnceAfterwards) {
  const auto trace = generate_trace(WorkloadParams{});
  std::vector<int> created(trace.pods.size(), 0), removed(trace.pods.size(), 0);
  std::vector<std::size_t> create_index(trace.pods.size(), 0);
  std::uint32_t bursts = 0;  // create events so far: each is one burst
  for (const auto id : trace.initial_pods) ++created[id];
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const auto& event = trace.events[i];
    ASSERT_FALSE(event.pods.empty());
    EXPECT_GE(event.t, 0);
    EXPECT_LT(event.t, trace.params.duration_s);
    if (i > 0) {
      const auto& before = trace.events[i - 1];
      ASSERT_LE(before.t, event.t);
      if (before.t == event.t) {
        EXPECT_FALSE(before.kind == TraceEvent::Kind::create &&
                     event.kind == TraceEvent::Kind::remove);
      }
    }
    if (event.kind == TraceEvent::Kind::remove) {
      ASSERT_EQ(event.pods.size(), 1U);
      const auto id = event.pods.front();
      ++removed[id];
      EXPECT_EQ(trace.pods[id].deleted_s, event.t);
      EXPECT_TRUE(created[id] == 1 && (trace.pods[id].created_s < 0 || create_index[id] < i));
      continue;
    }
    for (const auto id : event.pods) {
      ++created[id];
      create_index[id] = i;
      EXPECT_EQ(trace.pods[id].created_s, event.t);
      EXPECT_EQ(trace.pods[id].burst, bursts);
    }
    ++bursts;
  }
  for (const auto& pod : trace.pods) {
    EXPECT_EQ(created[pod.id], 1) << pod.name;
    EXPECT_EQ(removed[pod.id], std::isinf(pod.deleted_s) ? 0 : 1) << pod.name;
    EXPECT_LT(pod.created_s, pod.deleted_s) << pod.name;
    if (pod.id > 0) {
      EXPECT_LE(trace.pods[pod.id - 1].created_s, pod.created_s);
    }
  }
}

TEST(WorkloadTest, PodsAreNamedAsTheirReplicaSetsName) {
  const auto trace = generate_trace(WorkloadParams{});
  std::set<std::string> names;
  for (const auto& pod : trace.pods) {
    const auto& deployment = trace.deployments[pod.deployment].name;
    EXPECT_EQ(pod.ns, "default");
    EXPECT_EQ(pod.replicaset, deployment + "-" + pod.template_hash);
    ASSERT_EQ(pod.name.size(), pod.replicaset.size() + 6) << pod.name;
    EXPECT_EQ(pod.name.substr(0, pod.replicaset.size() + 1), pod.replicaset + "-");
    EXPECT_EQ(pod.name.find_first_not_of("bcdfghjklmnpqrstvwxz2456789", pod.replicaset.size() + 1),
              std::string::npos);
    EXPECT_TRUE(names.insert(pod.name).second) << "duplicate " << pod.name;
  }
}

// A burst of a deployment with a template hash unseen before is a rolling update: its pods
// replace as many old ones, removed rollout_delay_s later (or when the deployment ends).
TEST(WorkloadTest, RollingUpdatesMakePodsOfANewReplicaSetAndRetireOldOnes) {
  const auto trace = generate_trace(WorkloadParams{});
  std::map<std::uint32_t, std::set<std::string>> hashes;
  for (const auto id : trace.initial_pods) {
    hashes[trace.pods[id].deployment].insert(trace.pods[id].template_hash);
  }
  std::multimap<double, std::uint32_t> removes;  // t -> pod
  for (const auto& event : trace.events) {
    if (event.kind == TraceEvent::Kind::remove) removes.emplace(event.t, event.pods.front());
  }
  unsigned updates = 0, retired_on_time = 0;
  for (const auto& event : trace.events) {
    if (event.kind != TraceEvent::Kind::create) continue;
    const auto& first = trace.pods[event.pods.front()];
    for (const auto id : event.pods) {
      EXPECT_EQ(trace.pods[id].deployment, first.deployment);
      EXPECT_EQ(trace.pods[id].template_hash, first.template_hash);
    }
    auto& seen = hashes[first.deployment];
    const bool update = !seen.empty() && !seen.contains(first.template_hash);
    seen.insert(first.template_hash);
    if (!update) continue;
    ++updates;
    const double retire = event.t + trace.params.rollout_delay_s;
    if (retire >= trace.params.duration_s) continue;
    unsigned old = 0;
    for (auto [it, end] = removes.equal_range(retire); it != end; ++it) {
      const auto& pod = trace.pods[it->second];
      if (pod.deployment == first.deployment && pod.template_hash != first.template_hash) ++old;
    }
    if (old == event.pods.size()) ++retired_on_time;
  }
  EXPECT_GT(updates, 50U);
  EXPECT_GT(retired_on_time, updates * 8 / 10) << "most deployments outlive their rollouts";
  unsigned multi = 0;
  for (const auto& [deployment, seen] : hashes) multi += seen.size() > 1 ? 1 : 0;
  EXPECT_GT(multi, 20U);
}

// Pods deleted at a moment when a pod of their ReplicaSet is created: replaced by it.
unsigned replaced_pods(const Trace& trace) {
  std::set<std::pair<std::string, double>> created;
  for (const auto& pod : trace.pods) created.insert({pod.replicaset, pod.created_s});
  unsigned replaced = 0;
  for (const auto& pod : trace.pods)
    if (std::isfinite(pod.deleted_s) && created.contains({pod.replicaset, pod.deleted_s}))
      ++replaced;
  return replaced;
}

double mean_life(const Trace& trace) {
  double lives = 0;
  unsigned whole = 0;
  for (const auto& pod : trace.pods) {
    if (pod.created_s < 0 || !std::isfinite(pod.deleted_s)) continue;
    lives += pod.deleted_s - pod.created_s;
    ++whole;
  }
  return lives / whole;
}

// A Deployment's pod that dies is replaced at that moment by a pod of the same ReplicaSet; the
// pods' own lives follow their mean, and the trace's other draws stay as without them.
TEST(WorkloadTest, PodsDieOnTheirOwnAndTheirControllerReplacesThem) {
  WorkloadParams params;
  params.duration_s = 3600;
  params.deployment_lifetime_mean_s = 600;
  const Trace plain = generate_trace(params);
  params.pod_lifetime_mean_s = 60;
  const Trace lived = generate_trace(params);
  const auto levels = [](const Trace& trace) {
    std::multiset<double> out;
    for (const auto& d : trace.deployments) out.insert(d.level);
    return out;
  };
  EXPECT_EQ(levels(lived), levels(plain)) << "the same workloads, numbered as they appear";
  EXPECT_EQ(replaced_pods(plain), 0U);
  EXPECT_GT(replaced_pods(lived), 2 * plain.pods.size()) << "ten pod lives per deployment life";
  EXPECT_GT(mean_life(plain), 100.0);
  EXPECT_GT(mean_life(lived), 30.0);
  EXPECT_LT(mean_life(lived), 60.0) << "the pods' own lives, cut short by their workloads'";
}

TEST(WorkloadTest, LevelsAndRatesHaveTheirLognormalSpread) {
  WorkloadParams params;
  params.duration_s = 4 * 3600;
  params.deployment_rate_sigma = 1.2;
  params.deployment_rate_median = 2e5;
  const auto trace = generate_trace(params);
  ASSERT_GT(trace.deployments.size(), 2000U);
  double sum = 0, squares = 0;
  for (const auto& d : trace.deployments) sum += std::log(d.level);
  const double n = static_cast<double>(trace.deployments.size());
  const double mean = sum / n;
  for (const auto& d : trace.deployments) squares += std::pow(std::log(d.level) - mean, 2);
  EXPECT_NEAR(std::sqrt(squares / n), 1.2, 0.06);
  EXPECT_NEAR(mean, std::log(2e5), 0.08);
  double jitter = 0;
  for (const auto& pod : trace.pods) {
    jitter += std::pow(std::log(pod.rate / trace.deployments[pod.deployment].level), 2);
  }
  EXPECT_NEAR(std::sqrt(jitter / static_cast<double>(trace.pods.size())), 0.2, 0.01);
}

// A declaring workload's pods all declare its pods' mean traffic in each direction, from a stream
// of its own: the trace is the same without declarations, about that share of the workloads
// declare, and their pods' traffic averages what they declare.
TEST(WorkloadTest, DeclaringWorkloadsDeclareTheirPodsMeanTrafficWithoutChangingTheTrace) {
  WorkloadParams params;
  params.duration_s = 1800;
  params.transmit_heavy_fraction = 0.5;
  const auto plain = generate_trace(params);
  params.declared_fraction = 0.5;
  ASSERT_EQ(validate(params), "");
  const auto declaring = generate_trace(params);
  ASSERT_TRUE(same(plain, declaring));
  std::set<std::uint32_t> declared, silent;
  double traffic = 0, declared_traffic = 0;
  for (const auto& pod : declaring.pods) {
    EXPECT_LT(plain.pods[pod.id].declared_rate, 0) << pod.name;
    if (pod.declared_rate < 0) {
      EXPECT_LT(pod.declared_transmit_rate, 0) << pod.name;
      silent.insert(pod.deployment);
      continue;
    }
    declared.insert(pod.deployment);
    const auto& workload = declaring.deployments[pod.deployment];
    const double heavy = workload.level * std::exp(0.2 * 0.2 / 2);
    const double light = heavy * params.minor_direction_fraction;
    EXPECT_DOUBLE_EQ(pod.declared_rate, workload.transmit_heavy ? light : heavy) << pod.name;
    EXPECT_DOUBLE_EQ(pod.declared_transmit_rate, workload.transmit_heavy ? heavy : light)
        << pod.name;
    traffic += pod.rate + pod.transmit_rate;
    declared_traffic += pod.declared_rate + pod.declared_transmit_rate;
  }
  for (const auto workload : declared) EXPECT_FALSE(silent.contains(workload)) << workload;
  const double share =
      static_cast<double>(declared.size()) / static_cast<double>(declared.size() + silent.size());
  EXPECT_NEAR(share, 0.5, 0.1);
  EXPECT_NEAR(traffic / declared_traffic, 1.0, 0.05);
  params.declared_fraction = 1.5;
  EXPECT_NE(validate(params).find("declared_fraction"), std::string::npos);
}

TEST(WorkloadTest, ValidateNamesTheBadParameter) {
  auto bad = [](auto change) {
    WorkloadParams params;
    change(params);
    return validate(params);
  };
  EXPECT_NE(bad([](auto& p) { p.nodes = 0; }).find("nodes"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.duration_s = 0; }).find("duration_s"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.background_median = -1; }).find("background_median"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.deployment_rate_sigma = 0.4; }).find("deployment_rate_sigma"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.pod_lifetime_mean_s = -1; }).find("pod_lifetime_mean_s"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.deployment_rate_median = NAN; }).find("deployment_rate_median"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.replicas_min = 0; }).find("replicas_min"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.replicas_max = 0; }).find("replicas_max"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.pods_per_node = 0; }).find("pods_per_node"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.deployment_lifetime_mean_s = 0; }).find("lifetime"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.rolling_update_rate = -1; }).find("rolling_update_rate"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.rollout_delay_s = -1; }).find("rollout_delay_s"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.scale_up_rate = 0.01; }).find("scale_up_rate"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.counter_days_max = 0.5; }).find("counter_days_max"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.warmup_s = -1; }).find("warmup_s"), std::string::npos);
}

TEST(WorkloadTest, EveryParameterIsAFlag) {
  WorkloadParams params;
  EXPECT_EQ(apply_flag(params, "--nodes", "12"), "");
  EXPECT_EQ(params.nodes, 12U);
  EXPECT_EQ(apply_flag(params, "seed", "18446744073709551615"), "");
  EXPECT_EQ(params.seed, 18446744073709551615ULL);
  EXPECT_EQ(apply_flag(params, "--rolling-update-rate", "0.25"), "");
  EXPECT_EQ(params.rolling_update_rate, 0.25);
  EXPECT_EQ(apply_flag(params, "--duration-s", "3.6e3"), "");
  EXPECT_EQ(params.duration_s, 3600);

  EXPECT_NE(apply_flag(params, "--nodes", "-1"), "");
  EXPECT_NE(apply_flag(params, "--nodes", "12x"), "");
  EXPECT_NE(apply_flag(params, "--warmup-s", "inf"), "");
  EXPECT_EQ(params.nodes, 12U) << "a bad value changes nothing";
  EXPECT_NE(apply_flag(params, "--no-such-flag", "1").find("no-such-flag"), std::string::npos);

  const auto help = workload_help();
  for (const auto* flag : {"seed",
                           "nodes",
                           "duration-s",
                           "background-median",
                           "background-sigma",
                           "deployment-rate-median",
                           "deployment-rate-sigma",
                           "pod-jitter-sigma",
                           "replicas-min",
                           "replicas-max",
                           "replicas-zipf-exponent",
                           "pods-per-node",
                           "deployment-lifetime-mean-s",
                           "pod-lifetime-mean-s",
                           "rolling-update-rate",
                           "rollout-delay-s",
                           "scale-up-rate",
                           "counter-days-min",
                           "counter-days-max",
                           "warmup-s"}) {
    EXPECT_NE(help.find(std::string("--") + flag + "="), std::string::npos) << flag;
    WorkloadParams p;
    EXPECT_EQ(apply_flag(p, flag, "2"), "") << flag;
  }
  EXPECT_NE(help.find("--nodes=30 "), std::string::npos) << help;
}

}  // namespace
}  // namespace netscore::sim
