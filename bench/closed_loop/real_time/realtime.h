#pragma once

#include "bench/closed_loop/processes/netscore_processes.h"
#include "bench/closed_loop/real_time/realtime_cluster.h"
#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/reports/run_result.h"
#include "bench/closed_loop/workload/workload.h"

// The closed loop in real time with the real parts: the trace's node traffic served by an
// exporter that a real Prometheus scrapes, the real netscore-collector watching kube-apiserver and
// querying that Prometheus, the real netscore-extender answering kube-scheduler's /prioritize over
// HTTP. kube-scheduler places the pods of the policies it can express (kube-scheduler alone,
// netscore policies through the shipped scheduler configuration); the harness places the others'
// (realtime_cluster.h). What the virtual-time level computes with the same code as libraries, this
// level checks end to end: query timing, watch latency, whole-second timestamps, Prometheus' own
// range functions. The trace's seconds are real seconds, so one policy takes the trace's duration.
namespace netscore::sim {

// SIGINT and SIGTERM end the running policy early (run_policy_realtime then throws), so that its
// processes are still stopped by PID and its temporary files removed.
void stop_on_signals();

// One policy on the trace. Throws std::runtime_error (with the failing process' log tail) when a
// part does not start; every process is stopped by PID before it returns or throws.
RunResult run_policy_realtime(const Trace& trace, const Policy& policy, const LoopParams& params,
                              const RealtimeBinaries& binaries, const KubeClusterOptions& kube);

}  // namespace netscore::sim
