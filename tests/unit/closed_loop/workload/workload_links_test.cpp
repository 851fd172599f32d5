// The workload's links: node speeds, transmit traffic and the scenarios that set them.
#include "bench/closed_loop/workload/workload.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

TEST(WorkloadLinksTest, TheStandardScenarioHasNoSpeedsAndATenthOfEachPodsReceiveAsTransmit) {
  const auto trace = generate_trace(WorkloadParams{});
  for (const double speed : trace.speed) EXPECT_EQ(speed, 0);
  for (const auto& deployment : trace.deployments) EXPECT_FALSE(deployment.transmit_heavy);
  for (const auto& pod : trace.pods) EXPECT_DOUBLE_EQ(pod.transmit_rate, 0.1 * pod.rate);
  ASSERT_EQ(trace.background_transmit.size(), 30U);
  ASSERT_EQ(trace.counter_start_transmit.size(), 30U);
  for (std::size_t n = 0; n < 30; ++n) {
    const double days = trace.counter_start_transmit[n] / 86400 / trace.background_transmit[n];
    EXPECT_GE(days, 1);
    EXPECT_LE(days, 30);
  }
  EXPECT_NE(trace.background_transmit, trace.background) << "drawn apart from receive";
}

// Only rates and speeds differ: the same seed gives the same arrivals, pods and deletions.
TEST(WorkloadLinksTest, TheHeterogeneousScenarioScalesRatesAndSlowsEveryThirdNode) {
  WorkloadParams standard;
  standard.seed = 5;
  WorkloadParams heterogeneous = standard;
  ASSERT_EQ(apply_flag(heterogeneous, "--scenario", "heterogeneous"), "");
  ASSERT_EQ(validate(heterogeneous), "");
  const auto a = generate_trace(standard);
  const auto b = generate_trace(heterogeneous);
  ASSERT_EQ(a.pods.size(), b.pods.size());
  ASSERT_EQ(a.events.size(), b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].t, b.events[i].t);
    EXPECT_EQ(a.events[i].pods, b.events[i].pods);
  }
  // Nodes 2, 5, ..., 29 at 1 GbE (125 MB/s), the others at 10 GbE; background 5% of the link
  // at the median instead of 1 MB/s, from the same draws.
  for (std::size_t n = 0; n < 30; ++n) {
    const bool slow = n % 3 == 2;
    EXPECT_EQ(b.speed[n], slow ? 1.25e8 : 1.25e9) << n;
    const double scale = (slow ? 0.05 * 1.25e8 : 0.05 * 1.25e9) / 1e6;
    EXPECT_NEAR(b.background[n] / a.background[n], scale, scale * 1e-12) << n;
    EXPECT_NEAR(b.background_transmit[n] / a.background_transmit[n], scale, scale * 1e-12) << n;
  }
  // Each pod's heavy direction carries its standard receive rate x 100 (2e7 / 2e5), the other a
  // tenth of that.
  for (std::size_t i = 0; i < a.pods.size(); ++i) {
    const auto& pod = b.pods[i];
    const bool transmit_heavy = b.deployments[pod.deployment].transmit_heavy;
    const double heavy = transmit_heavy ? pod.transmit_rate : pod.rate;
    const double light = transmit_heavy ? pod.rate : pod.transmit_rate;
    EXPECT_NEAR(heavy, 100 * a.pods[i].rate, 100 * a.pods[i].rate * 1e-12);
    EXPECT_DOUBLE_EQ(light, 0.1 * heavy);
  }
}

TEST(WorkloadLinksTest, TransmitHeavyDeploymentsComeAtTheirFraction) {
  WorkloadParams params;
  params.duration_s = 4 * 3600;
  params.transmit_heavy_fraction = 0.3;
  params.minor_direction_fraction = 0.25;
  const auto trace = generate_trace(params);
  ASSERT_GT(trace.deployments.size(), 2000U);
  double heavy = 0;
  for (const auto& deployment : trace.deployments) heavy += deployment.transmit_heavy ? 1 : 0;
  // Binomial: sd sqrt(0.3 x 0.7 / 2000) = 0.010.
  EXPECT_NEAR(heavy / static_cast<double>(trace.deployments.size()), 0.3, 0.04);
  for (const auto& pod : trace.pods) {
    if (trace.deployments[pod.deployment].transmit_heavy) {
      EXPECT_DOUBLE_EQ(pod.rate, 0.25 * pod.transmit_rate);
    } else {
      EXPECT_DOUBLE_EQ(pod.transmit_rate, 0.25 * pod.rate);
    }
  }
}

TEST(WorkloadLinksTest, SlowNodesAreInterleavedAndTheirBackgroundScaled) {
  WorkloadParams params;
  params.nodes = 8;
  params.link_speed = 1000;
  params.slow_fraction = 0.25;
  params.slow_speed_factor = 0.5;
  const auto trace = generate_trace(params);
  WorkloadParams unscaled = params;
  unscaled.link_speed = 0;
  const auto reference = generate_trace(unscaled);
  // Two slow nodes of 8: where the running count floor((i + 1) x 2 / 8) steps, at 3 and 7.
  const std::vector<double> speeds{1000, 1000, 1000, 500, 1000, 1000, 1000, 500};
  EXPECT_EQ(trace.speed, speeds);
  for (std::size_t n = 0; n < 8; ++n) {
    EXPECT_DOUBLE_EQ(trace.background[n], reference.background[n] * speeds[n] / 1000) << n;
    EXPECT_EQ(reference.speed[n], 0);
  }
}

TEST(WorkloadLinksTest, ScenarioFlagSetsItsParametersAndLaterFlagsOverride) {
  WorkloadParams params;
  EXPECT_EQ(apply_flag(params, "--scenario", "heterogeneous"), "");
  EXPECT_EQ(params.link_speed, 1.25e9);
  EXPECT_DOUBLE_EQ(params.slow_fraction, 1.0 / 3);
  EXPECT_EQ(params.slow_speed_factor, 0.1);
  EXPECT_EQ(params.transmit_heavy_fraction, 0.5);
  EXPECT_EQ(params.minor_direction_fraction, 0.1);
  EXPECT_EQ(apply_flag(params, "--slow-speed-factor", "0.25"), "");
  EXPECT_EQ(params.slow_speed_factor, 0.25);
  EXPECT_EQ(apply_flag(params, "scenario", "standard"), "");
  EXPECT_EQ(params.link_speed, 0);
  EXPECT_EQ(params.background_median, WorkloadParams{}.background_median);
  EXPECT_EQ(params.deployment_rate_median, WorkloadParams{}.deployment_rate_median);
  EXPECT_NE(apply_flag(params, "--scenario", "fast").find("unknown scenario"), std::string::npos);
  const auto help = workload_help();
  for (const auto* flag : {"scenario", "link-speed", "slow-fraction", "slow-speed-factor",
                           "transmit-heavy-fraction", "minor-direction-fraction"}) {
    EXPECT_NE(help.find(std::string("--") + flag + "="), std::string::npos) << flag;
  }
}

TEST(WorkloadLinksTest, ValidateNamesTheBadLinkParameter) {
  auto bad = [](auto change) {
    WorkloadParams params;
    change(params);
    return validate(params);
  };
  EXPECT_NE(bad([](auto& p) { p.link_speed = -1; }).find("link_speed"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.slow_fraction = 1.5; }).find("slow_fraction"), std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.slow_speed_factor = 0; }).find("slow_speed_factor"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.transmit_heavy_fraction = -0.1; }).find("transmit_heavy"),
            std::string::npos);
  EXPECT_NE(bad([](auto& p) { p.minor_direction_fraction = NAN; }).find("minor_direction"),
            std::string::npos);
}

}  // namespace
}  // namespace netscore::sim
