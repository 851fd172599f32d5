#include "bench/closed_loop/scale/scale_metrics.h"

#include <unistd.h>

#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace netscore::sim {
namespace {

TEST(ProcessUsage, ReadsThisProcess) {
  EXPECT_GE(process_cpu_s(::getpid()).value_or(-1), 0);
  EXPECT_GT(process_peak_rss_kb(::getpid()).value_or(0), 0);
  EXPECT_EQ(child_by_comm("no-such-child"), std::nullopt);
  EXPECT_GE(load_average_1m().value_or(-1), 0);
}

// proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
// utime stime cutime cstime ...
TEST(StatCpuTicks, AddsUtimeAndStimeAfterTheCommand) {
  EXPECT_EQ(stat_cpu_ticks("4242 (etcd) S 1 4242 4242 0 -1 4194560 9123 0 0 0 "
                           "1234 567 8 9 20 0 12 0 345 0 0"),
            1234 + 567);
}

TEST(StatCpuTicks, ACommandWithSpacesAndParenthesesDoesNotShiftTheFields) {
  EXPECT_EQ(stat_cpu_ticks("77 (a) b (c) R 1 77 77 0 -1 0 0 0 0 0 10 20 30 40 20 0 1 0 0"), 30);
}

TEST(StatCpuTicks, RefusesWhatIsNotAStatLine) {
  EXPECT_EQ(stat_cpu_ticks(""), std::nullopt);
  EXPECT_EQ(stat_cpu_ticks("77 (short) S 1 2 3"), std::nullopt);
  EXPECT_EQ(stat_cpu_ticks("77 (x) S 1 77 77 0 -1 0 0 0 0 0 ten 20 0 0"), std::nullopt);
}

TEST(CpuMsPerPod, DividesEachProcessWindowByThePodsBound) {
  const std::map<std::string, double> before{
      {"kube-scheduler", 10.0}, {"netscore-extend", 1.0}, {"gone", 3.0}};
  const std::map<std::string, double> after{
      {"kube-scheduler", 12.5}, {"netscore-extend", 1.125}, {"started", 4.0}};
  const auto per_pod = cpu_ms_per_pod(before, after, 500);
  ASSERT_EQ(per_pod.size(), 2U);
  EXPECT_DOUBLE_EQ(per_pod.at("kube-scheduler"), 5.0);    // 2.5 s over 500 pods
  EXPECT_DOUBLE_EQ(per_pod.at("netscore-extend"), 0.25);  // 125 ms over 500 pods
}

TEST(CpuMsPerPod, NoPodBoundGivesNoFigure) {
  EXPECT_TRUE(cpu_ms_per_pod({{"etcd", 1.0}}, {{"etcd", 2.0}}, 0).empty());
}

}  // namespace
}  // namespace netscore::sim
