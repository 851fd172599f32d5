#include <string>

#include <gtest/gtest.h>

#include "bench/closed_loop/placement/policy.h"
#include "bench/flags/flags.h"

namespace netscore::sim {
namespace {

std::string apply_loop_flag(LoopParams& params, const std::string& flag) {
  flags::po::options_description options;
  add_loop_options(options, params);
  return flags::apply(options, {flag});
}

TEST(LoopOptionsTest, PodSeriesDefaultsToCadvisorAndTakesEachName) {
  LoopParams params;
  EXPECT_EQ(params.pod_series, PodSeries::cadvisor);
  EXPECT_EQ(apply_loop_flag(params, "--pod-series=none"), "");
  EXPECT_EQ(params.pod_series, PodSeries::none);
  EXPECT_EQ(apply_loop_flag(params, "--pod-series=unlabelled"), "");
  EXPECT_EQ(params.pod_series, PodSeries::unlabelled);
  EXPECT_EQ(apply_loop_flag(params, "--pod-series=cadvisor"), "");
  EXPECT_EQ(params.pod_series, PodSeries::cadvisor);
}

TEST(LoopOptionsTest, AnUnknownPodSeriesIsRefusedByName) {
  LoopParams params;
  const std::string error = apply_loop_flag(params, "--pod-series=kubelet");
  EXPECT_NE(error.find("pod-series"), std::string::npos) << error;
  EXPECT_EQ(params.pod_series, PodSeries::cadvisor);
}

TEST(LoopOptionsTest, HelpListsPodSeriesWithItsDefault) {
  EXPECT_NE(loop_help().find("--pod-series=cadvisor "), std::string::npos) << loop_help();
  EXPECT_NE(loop_help().find("--scrape-s=1 "), std::string::npos);
}

}  // namespace
}  // namespace netscore::sim
