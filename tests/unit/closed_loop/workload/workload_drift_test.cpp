// The drift scenario and the traffic drift of workloads after their pods are placed.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "bench/closed_loop/workload/workload.h"

namespace netscore::sim {
namespace {

WorkloadParams drift_params(std::uint64_t seed) {
  WorkloadParams params;
  params.seed = seed;
  params.nodes = 20;
  EXPECT_EQ(apply_flag(params, "--scenario", "drift"), "");
  EXPECT_EQ(apply_flag(params, "--duration-s", "300"), "");
  return params;
}

// The quiet and busy levels scale the drift scenario's traffic and nothing else: 6e6 bytes/s of
// background and 7.5e5 per pod at the median, halved and doubled.
TEST(WorkloadDrift, QuietAndBusyAreTheDriftAtHalfAndTwiceTheLoad) {
  WorkloadParams drift, quiet, busy;
  ASSERT_EQ(apply_flag(drift, "--scenario", "drift"), "");
  ASSERT_EQ(apply_flag(quiet, "--scenario", "drift-quiet"), "");
  ASSERT_EQ(apply_flag(busy, "--scenario", "drift-busy"), "");
  EXPECT_EQ(drift.background_median, 6e6);
  EXPECT_EQ(quiet.background_median, 3e6);
  EXPECT_EQ(busy.background_median, 1.2e7);
  EXPECT_EQ(quiet.deployment_rate_median, 3.75e5);
  EXPECT_EQ(busy.deployment_rate_median, 1.5e6);
  EXPECT_EQ(quiet.link_speed, drift.link_speed);
  EXPECT_EQ(busy.drift_grow_fraction, drift.drift_grow_fraction);
}

TEST(WorkloadDrift, SameSeedSameDriftAndOtherSeedOther) {
  const Trace a = generate_trace(drift_params(7));
  const Trace b = generate_trace(drift_params(7));
  const Trace c = generate_trace(drift_params(8));
  ASSERT_EQ(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].t, b.events[i].t);
    EXPECT_EQ(a.events[i].kind, b.events[i].kind);
    EXPECT_EQ(a.events[i].pods, b.events[i].pods);
    EXPECT_EQ(a.events[i].factor, b.events[i].factor);
  }
  std::vector<double> moments_a, moments_c;
  for (const auto& d : a.deployments) moments_a.push_back(d.drift_s);
  for (const auto& d : c.deployments) moments_c.push_back(d.drift_s);
  EXPECT_NE(moments_a, moments_c);
}

// Long-lived Deployments: the pods running at t = 0 are there until the end, so that traffic
// drifting after placement stays where it was placed.
TEST(WorkloadDrift, LongLivedDeploymentsOfTwoOrMoreReplicas) {
  const Trace trace = generate_trace(drift_params(3));
  ASSERT_GE(trace.initial_pods.size(), 150U);  // 12.5 per node on average
  unsigned removed = 0;
  for (const auto pod : trace.initial_pods) removed += std::isfinite(trace.pods[pod].deleted_s);
  EXPECT_LT(removed, trace.initial_pods.size() / 10);
  std::vector<unsigned> replicas(trace.deployments.size(), 0);
  for (const auto pod : trace.initial_pods) ++replicas[trace.pods[pod].deployment];
  for (const auto& d : trace.deployments) EXPECT_EQ(d.kind, OwnerKind::replicaset);
  for (const auto count : replicas) EXPECT_TRUE(count == 0 || count >= 2) << count;
  for (const double speed : trace.speed) EXPECT_EQ(speed, 1.25e8);
}

// Some workloads grow fourfold, some shrink fourfold, within the drift window; each rescale event
// names exactly the pods of one workload running at its moment, with its factor.
TEST(WorkloadDrift, RescalesTheRunningPodsOfAWorkloadOnce) {
  const Trace trace = generate_trace(drift_params(5));
  const auto& p = trace.params;
  unsigned grown = 0, shrunk = 0, events = 0;
  for (std::uint32_t d = 0; d < trace.deployments.size(); ++d) {
    const auto& deployment = trace.deployments[d];
    if (deployment.drift_factor == 1) continue;
    grown += deployment.drift_factor == p.drift_grow_factor;
    shrunk += deployment.drift_factor == p.drift_shrink_factor;
    EXPECT_GE(deployment.drift_s, p.drift_from * p.duration_s);
    EXPECT_LT(deployment.drift_s, p.drift_to * p.duration_s);
  }
  EXPECT_GT(grown, 3U);
  EXPECT_GT(shrunk, 3U);
  double last_t = 0;
  for (const auto& event : trace.events) {
    EXPECT_GE(event.t, last_t);
    last_t = event.t;
    if (event.kind != TraceEvent::Kind::rescale) continue;
    ++events;
    ASSERT_FALSE(event.pods.empty());
    const auto d = trace.pods[event.pods.front()].deployment;
    EXPECT_EQ(event.t, trace.deployments[d].drift_s);
    EXPECT_EQ(event.factor, trace.deployments[d].drift_factor);
    unsigned running = 0;
    for (const auto& pod : trace.pods) {
      running += pod.deployment == d && pod.created_s < event.t && pod.deleted_s > event.t;
    }
    EXPECT_EQ(event.pods.size(), running);
    for (const auto pod : event.pods) EXPECT_EQ(trace.pods[pod].deployment, d);
  }
  EXPECT_GE(events, grown + shrunk - 2);  // a workload may have no pod left at its moment
}

// A pod created after its workload drifted starts at the new rate; one created before keeps the
// rate of its creation in PodSpec. The standard scenario's short-lived workloads create pods
// all along.
TEST(WorkloadDrift, PodsCreatedAfterTheDriftStartAtTheNewRate) {
  WorkloadParams params;
  params.seed = 4;
  params.nodes = 20;
  params.duration_s = 300;
  params.drift_grow_fraction = 1;
  params.drift_shrink_fraction = 0;
  WorkloadParams still = params;
  still.drift_grow_fraction = 0;
  const Trace drifted = generate_trace(params);
  const Trace plain = generate_trace(still);
  ASSERT_EQ(drifted.pods.size(), plain.pods.size());
  unsigned after = 0;
  for (std::size_t i = 0; i < plain.pods.size(); ++i) {
    const double moment = drifted.deployments[drifted.pods[i].deployment].drift_s;
    const double factor = drifted.pods[i].created_s >= moment ? params.drift_grow_factor : 1;
    after += factor != 1;
    EXPECT_DOUBLE_EQ(drifted.pods[i].rate, plain.pods[i].rate * factor);
  }
  EXPECT_GT(after, 0U);
}

WorkloadParams shaped_params(std::string_view scenario) {
  WorkloadParams params = drift_params(6);
  EXPECT_EQ(apply_flag(params, "--scenario", scenario), "");
  EXPECT_EQ(apply_flag(params, "--duration-s", "300"), "");
  return params;
}

// drift-one: exactly one workload drifts, growing twentyfold, and it has pods running then.
TEST(WorkloadDrift, OneWorkloadGrowsAndNoOtherDrifts) {
  const Trace trace = generate_trace(shaped_params("drift-one"));
  unsigned drifting = 0;
  for (const auto& d : trace.deployments) {
    if (d.drift_factor == 1) continue;
    ++drifting;
    EXPECT_EQ(d.drift_factor, 20);
  }
  EXPECT_EQ(drifting, 1U);
  unsigned rescales = 0;
  for (const auto& event : trace.events) rescales += event.kind == TraceEvent::Kind::rescale;
  EXPECT_EQ(rescales, 1U);
}

// drift-gradual: each drifting workload reaches its factor in kDriftSteps equal steps, the last
// one a third of the run after its moment minus a step; a pod created during the ramp starts at
// the steps taken by then.
TEST(WorkloadDrift, AGradualDriftTakesEqualStepsOverTheRamp) {
  const Trace trace = generate_trace(shaped_params("drift-gradual"));
  const auto& p = trace.params;
  const unsigned steps = WorkloadParams::kDriftSteps;
  const double step_s = p.drift_ramp * p.duration_s / steps;
  std::map<std::uint32_t, std::vector<double>> moments;  // workload -> its rescales' times
  for (const auto& event : trace.events) {
    if (event.kind != TraceEvent::Kind::rescale) continue;
    const auto d = trace.pods[event.pods.front()].deployment;
    EXPECT_NEAR(std::pow(event.factor, steps), trace.deployments[d].drift_factor,
                1e-12 * trace.deployments[d].drift_factor);
    moments[d].push_back(event.t);
  }
  ASSERT_GT(moments.size(), 3U);
  for (const auto& [d, times] : moments) {
    EXPECT_EQ(times.size(), steps);
    for (unsigned step = 0; step < times.size(); ++step)
      EXPECT_DOUBLE_EQ(times[step], trace.deployments[d].drift_s + step * step_s);
  }
  const WorkloadParams still = [] {
    WorkloadParams params = shaped_params("drift-gradual");
    params.drift_grow_fraction = params.drift_shrink_fraction = 0;
    return params;
  }();
  const Trace plain = generate_trace(still);
  ASSERT_EQ(trace.pods.size(), plain.pods.size());
  for (std::size_t i = 0; i < plain.pods.size(); ++i) {
    const auto& d = trace.deployments[trace.pods[i].deployment];
    if (d.drift_factor == 1) continue;
    const double since = trace.pods[i].created_s - d.drift_s;
    const double taken = since < 0 ? 0 : std::min<double>(steps, std::floor(since / step_s) + 1);
    EXPECT_NEAR(trace.pods[i].rate, plain.pods[i].rate * std::pow(d.drift_factor, taken / steps),
                1e-9 * plain.pods[i].rate);
  }
}

TEST(WorkloadDrift, NoDriftLeavesTheTraceWithoutRescales) {
  WorkloadParams params;
  params.nodes = 20;
  params.duration_s = 300;
  for (const auto& event : generate_trace(params).events)
    EXPECT_NE(event.kind, TraceEvent::Kind::rescale);
  EXPECT_EQ(apply_flag(params, "--scenario", "drift"), "");
  EXPECT_EQ(apply_flag(params, "--scenario", "standard"), "");
  EXPECT_EQ(params.drift_grow_fraction, 0);
  EXPECT_EQ(params.deployment_lifetime_mean_s, WorkloadParams{}.deployment_lifetime_mean_s);
}

TEST(WorkloadDrift, RefusesBadDriftParameters) {
  WorkloadParams params;
  params.drift_grow_fraction = 0.7;
  params.drift_shrink_fraction = 0.5;
  EXPECT_NE(validate(params), "");
  params.drift_shrink_fraction = 0.1;
  EXPECT_EQ(validate(params), "");
  params.drift_from = 0.8;
  params.drift_to = 0.5;
  EXPECT_NE(validate(params), "");
  params.drift_to = 0.9;
  params.drift_ramp = 1.5;
  EXPECT_NE(validate(params), "");
}

}  // namespace
}  // namespace netscore::sim
