// CI runners of projects: pods without an owner whose traffic per pod a project shares across its
// pipelines, with and without a label saying which project they belong to.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "bench/closed_loop/workload/workload.h"

namespace netscore::sim {
namespace {

WorkloadParams ci_scenario(std::string_view name, std::uint64_t seed = 1) {
  WorkloadParams params;
  params.seed = seed;
  EXPECT_EQ(apply_flag(params, "--scenario", name), "");
  EXPECT_EQ(validate(params), "");
  return params;
}

TEST(WorkloadProjectsTest, EachPipelineIsOneBurstOfBareRunnersOfOneOfTwelveProjects) {
  const auto trace = generate_trace(ci_scenario("ci-runners"));
  std::set<std::string> projects;
  std::map<std::uint32_t, std::set<std::uint32_t>> bursts_of_workload;
  std::map<std::uint32_t, unsigned> burst_sizes;
  for (const auto& pod : trace.pods) {
    ASSERT_EQ(pod.owner_kind, OwnerKind::none) << pod.name;
    const auto& project = trace.deployments[pod.deployment].project;
    ASSERT_FALSE(project.empty()) << pod.name;
    projects.insert(project);
    if (pod.burst == kInitialBurst) continue;
    bursts_of_workload[pod.deployment].insert(pod.burst);
    ++burst_sizes[pod.burst];
  }
  EXPECT_EQ(projects.size(), 12U);
  for (const auto& [workload, bursts] : bursts_of_workload) ASSERT_EQ(bursts.size(), 1U);
  // A burst is cut short only when its pipeline or the trace ends while it is being created.
  unsigned whole = 0;
  for (const auto& [burst, size] : burst_sizes) {
    ASSERT_LE(size, 40U);
    whole += size >= 4 ? 1 : 0;
  }
  EXPECT_GT(whole, burst_sizes.size() * 9 / 10);
}

TEST(WorkloadProjectsTest, AProjectsPipelinesShareItsTrafficPerPod) {
  const auto trace = generate_trace(ci_scenario("ci-runners"));
  std::map<std::string, double> level;
  for (const auto& workload : trace.deployments) {
    const auto [it, first] = level.emplace(workload.project, workload.level);
    EXPECT_EQ(it->second, workload.level) << workload.name << " of " << workload.project;
  }
  // Drawn per project as a deployment's (lognormal, sigma >= 1): projects differ.
  std::set<double> levels;
  for (const auto& [project, value] : level) levels.insert(value);
  EXPECT_EQ(levels.size(), level.size());
}

TEST(WorkloadProjectsTest, RunnersLiveTwentySecondsOnAverage) {
  auto params = ci_scenario("ci-runners");
  params.duration_s = 3600;
  const auto trace = generate_trace(params);
  double lifetimes = 0, ended = 0;
  for (const auto& pod : trace.pods) {
    if (pod.created_s >= 0 && std::isfinite(pod.deleted_s)) {
      lifetimes += pod.deleted_s - pod.created_s;
      ++ended;
    }
  }
  ASSERT_GT(ended, 10000);
  // The pipeline's life less its creates' spread over up to 2 s.
  EXPECT_NEAR(lifetimes / ended, 20, 3);
}

TEST(WorkloadProjectsTest, TheLabelledScenarioIsTheSameTraceWithLabelsOn) {
  const auto plain = ci_scenario("ci-runners", 3);
  const auto labelled = ci_scenario("ci-runners-labelled", 3);
  EXPECT_FALSE(plain.project_labels);
  EXPECT_TRUE(labelled.project_labels);
  const auto a = generate_trace(plain);
  const auto b = generate_trace(labelled);
  ASSERT_EQ(a.pods.size(), b.pods.size());
  for (std::size_t i = 0; i < a.pods.size(); ++i) {
    ASSERT_EQ(a.pods[i].name, b.pods[i].name);
    ASSERT_EQ(a.pods[i].rate, b.pods[i].rate);
    ASSERT_EQ(a.pods[i].created_s, b.pods[i].created_s);
    ASSERT_EQ(a.pods[i].deleted_s, b.pods[i].deleted_s);
    ASSERT_EQ(a.deployments[a.pods[i].deployment].project,
              b.deployments[b.pods[i].deployment].project);
  }
}

// Projects apply to pods without an owner only, and draw from streams of their own: a trace whose
// workloads all have owners is the same with or without them.
TEST(WorkloadProjectsTest, ProjectsLeaveOwnedWorkloadsAsTheyWere) {
  WorkloadParams params;
  params.duration_s = 600;
  params.job_fraction = 0.3;
  const auto without = generate_trace(params);
  params.projects = 12;
  const auto with = generate_trace(params);
  ASSERT_EQ(without.pods.size(), with.pods.size());
  for (std::size_t i = 0; i < with.pods.size(); ++i) {
    ASSERT_EQ(without.pods[i].rate, with.pods[i].rate);
    ASSERT_EQ(without.pods[i].name, with.pods[i].name);
  }
  for (const auto& workload : with.deployments) EXPECT_TRUE(workload.project.empty());
}

TEST(WorkloadProjectsTest, FlagsSetProjectsAndStandardPutsThemBack) {
  WorkloadParams params;
  EXPECT_EQ(apply_flag(params, "--projects", "5"), "");
  EXPECT_EQ(apply_flag(params, "--project-labels", "true"), "");
  EXPECT_EQ(params.projects, 5U);
  EXPECT_TRUE(params.project_labels);
  EXPECT_NE(apply_flag(params, "--project-labels", "maybe").find("project-labels"),
            std::string::npos);
  params.projects = 101;
  EXPECT_NE(validate(params).find("projects"), std::string::npos);
  EXPECT_EQ(apply_flag(params, "--scenario", "ci-runners-labelled"), "");
  EXPECT_EQ(apply_flag(params, "--scenario", "standard"), "");
  EXPECT_EQ(params.projects, 0U);
  EXPECT_FALSE(params.project_labels);
  EXPECT_EQ(params.bare_fraction, 0);
  const auto help = workload_help();
  for (const auto* text : {"ci-runners-labelled", "--projects=0 ", "--project-labels=false "}) {
    EXPECT_NE(help.find(text), std::string::npos) << text;
  }
}

// Declared ceilings come from streams of their own: the traffic is the trace's without them, a
// project declares one ceiling per direction across its pipelines, the heavy direction's headroom
// within the bounds, and no pod's traffic reaches its ceiling.
TEST(WorkloadProjectsTest, CeilingsAreDeclaredPerProjectAboveItsTrafficWithoutChangingIt) {
  const auto plain = generate_trace(ci_scenario("ci-runners"));
  auto params = ci_scenario("ci-runners");
  params.ceiling_fraction = 0.5;
  params.ceiling_headroom_min = 2;
  params.ceiling_headroom_max = 8;
  ASSERT_EQ(validate(params), "");
  const auto shaped = generate_trace(params);
  ASSERT_EQ(shaped.pods.size(), plain.pods.size());
  std::map<std::string, double> ceiling_of_project;
  std::set<std::string> declaring, silent;
  for (std::size_t i = 0; i < shaped.pods.size(); ++i) {
    const PodSpec& pod = shaped.pods[i];
    ASSERT_EQ(pod.rate, plain.pods[i].rate) << pod.name;
    ASSERT_EQ(pod.transmit_rate, plain.pods[i].transmit_rate) << pod.name;
    EXPECT_LT(plain.pods[i].receive_ceiling, 0) << pod.name;
    const Deployment& workload = shaped.deployments[pod.deployment];
    if (pod.receive_ceiling < 0) {
      EXPECT_LT(pod.transmit_ceiling, 0) << pod.name;
      silent.insert(workload.project);
      continue;
    }
    declaring.insert(workload.project);
    const auto [it, first] = ceiling_of_project.emplace(workload.project, pod.receive_ceiling);
    EXPECT_EQ(it->second, pod.receive_ceiling) << pod.name;
    EXPECT_GE(pod.receive_ceiling, 2 * workload.level * (1 - 1e-12)) << pod.name;
    EXPECT_LE(pod.receive_ceiling, 8 * workload.level * (1 + 1e-12)) << pod.name;
    EXPECT_NEAR(pod.transmit_ceiling / pod.receive_ceiling, params.minor_direction_fraction, 1e-12);
    EXPECT_LT(pod.rate, pod.receive_ceiling) << pod.name;
    EXPECT_LT(pod.transmit_rate, pod.transmit_ceiling) << pod.name;
  }
  for (const auto& project : declaring) EXPECT_FALSE(silent.contains(project)) << project;
  // Half of twelve projects, give or take the draw.
  EXPECT_GE(declaring.size(), 2U);
  EXPECT_GE(silent.size(), 2U);
  params.ceiling_headroom_min = 1.5;
  EXPECT_NE(validate(params).find("ceiling_headroom_min"), std::string::npos);
  params.ceiling_headroom_min = 2;
  params.ceiling_fraction = 1.5;
  EXPECT_NE(validate(params).find("ceiling_fraction"), std::string::npos);
}

}  // namespace
}  // namespace netscore::sim
