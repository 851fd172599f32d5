#include "bench/closed_loop/scale/scale_report.h"

#include <optional>

#include <gtest/gtest.h>

#include "bench/closed_loop/scale/scale_run.h"

namespace netscore::sim {
namespace {

TEST(NetscoreCpuPerPod, AddsTheCollectorAndTheExtender) {
  ScaleRunResult run;
  run.cpu_ms_per_pod = {
      {"kube-scheduler", 4.0}, {"netscore-collec", 0.75}, {"netscore-extend", 0.25}};
  EXPECT_EQ(netscore_cpu_ms_per_pod(run), 1.0);
}

TEST(NetscoreCpuPerPod, NoneWithoutBothProcesses) {
  ScaleRunResult alone;
  alone.cpu_ms_per_pod = {{"kube-scheduler", 4.0}, {"netscore-extend", 0.25}};
  EXPECT_EQ(netscore_cpu_ms_per_pod(alone), std::nullopt);
}

}  // namespace
}  // namespace netscore::sim
