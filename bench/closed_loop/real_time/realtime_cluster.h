#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/processes/descheduler_process.h"
#include "bench/closed_loop/workload/workload.h"
#include "common/config.h"

// The Kubernetes side of the real-time closed loop: a real control plane, where kube-scheduler
// places the pods of the policies it can express and the harness learns its bindings, and the
// harness places the others' itself. Pods are the trace's indices. Not thread-safe: the loop's
// thread calls it.
namespace netscore::sim {

class RealtimeCluster {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~RealtimeCluster() = default;

  // The NETSCORE_KUBE_* settings the collector reaches the API server with.
  virtual Environment collector_env() const = 0;
  // A pod alive at t = 0, bound to `node` and running for long before.
  virtual void create_initial(std::uint32_t pod, std::size_t node) = 0;
  // Creations, deletions and the harness' own bindings are sent in order from a thread of their
  // own, so that a burst does not hold up the loop; summary() counts the API server's refusals.
  virtual void create(std::uint32_t pod) = 0;
  virtual void remove(std::uint32_t pod) = 0;
  virtual void bind(std::uint32_t pod, std::size_t node) = 0;

  // True when kube-scheduler places this policy's pods rather than the harness.
  virtual bool schedules(const Policy& policy) const = 0;
  // Starts kube-scheduler for `policy` (with the extender at `extender_url` for netscore policies)
  // once the extender is ready. Only when schedules(policy).
  virtual void start_scheduler(const Policy& policy, const std::string& extender_url) = 0;
  // Bindings kube-scheduler made since the last call (pod, node), waiting until one arrives or
  // `until` passes; the harness' own bindings may be repeated.
  virtual std::vector<std::pair<std::uint32_t, std::size_t>> wait_for_bindings(
      Clock::time_point until) = 0;
  // One line on what the cluster saw.
  virtual std::string summary() const = 0;

  // With a descheduler (KubeClusterOptions::descheduler): its scaled interval, else nullopt.
  virtual std::optional<double> descheduler_interval_s() const = 0;
  // Starts it against Prometheus on https://127.0.0.1 (port 443) whose certificate
  // `prometheus_ca` holds, once that Prometheus records the utilisation it reads.
  virtual void start_descheduler(const std::string& prometheus_ca) = 0;
  // The pods evicted since the last call (call after wait_for_bindings, which learns them). The
  // cluster has played their kubelet (the pod deleted at once) and, for a ReplicaSet's pod, its
  // controller: a replacement, the same trace pod under a new name, waits to be scheduled and
  // comes back through wait_for_bindings. Other owners' pods are gone for good.
  virtual std::vector<std::uint32_t> take_evicted() = 0;
};

struct KubeClusterOptions {
  std::string kube_bin;    // kube-apiserver and kube-scheduler
  std::string deploy_dir;  // the project's deploy/ (scheduler configuration, RBAC)
  // The descheduler overlay's objects are created with the cluster, and the cluster plays the
  // kubelet (a bound pod is marked running, so that minPodAge counts from its start) and the
  // ReplicaSet controller (an evicted pod is replaced).
  std::optional<DeschedulerOptions> descheduler{};
};

// etcd, kube-apiserver and, for the policies it can express, kube-scheduler (control_plane.h),
// with the trace's nodes, their pods' owners and the initial pods created through the API.
// Throws std::runtime_error when a part does not start.
std::unique_ptr<RealtimeCluster> kube_cluster(const Trace& trace,
                                              const KubeClusterOptions& options);

}  // namespace netscore::sim
