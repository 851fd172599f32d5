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
#include "bench/closed_loop/workload/workload.h"
#include "common/config.h"

// The Kubernetes side of the real-time closed loop, behind one interface so that the loop reads
// the same with a fake API server (the harness schedules every pod with the scheduler model) and
// with a real control plane (kube-scheduler places the pods of the policies it can express, and
// the harness learns its bindings). Pods are the trace's indices. Not thread-safe: the loop's
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
  // False when the API server refused it. The real control plane sends creations, deletions and
  // bindings in order from a thread of its own, so that a burst does not hold up the loop: it
  // answers true at once and counts refusals in summary().
  virtual bool create(std::uint32_t pod) = 0;
  virtual void remove(std::uint32_t pod) = 0;
  // The harness' own binding; false when the API server refused it (as create).
  virtual bool bind(std::uint32_t pod, std::size_t node) = 0;
  // The pod as the API server serves it (for the scheduler model's /prioritize); nullopt if gone.
  virtual std::optional<std::string> pod_json(std::uint32_t pod) const = 0;

  // True when kube-scheduler places this policy's pods rather than the harness.
  virtual bool schedules(const Policy& policy) const = 0;
  // Starts kube-scheduler for `policy` (with the extender at `extender_url` for netscore policies)
  // once the extender is ready. Only when schedules(policy).
  virtual void start_scheduler(const Policy& policy, const std::string& extender_url) = 0;
  // Bindings kube-scheduler made since the last call (pod, node), waiting until one arrives or
  // `until` passes; the harness' own bindings may be repeated.
  virtual std::vector<std::pair<std::uint32_t, std::size_t>> wait_for_bindings(
      Clock::time_point until) = 0;
  // One line on what the cluster saw (empty: nothing to add to the loop's own).
  virtual std::string summary() const = 0;
};

// The in-process fake API server: pods are created and bound as the harness says, nothing binds
// on its own.
std::unique_ptr<RealtimeCluster> fake_cluster(const Trace& trace);

struct KubeClusterOptions {
  std::string kube_bin;    // kube-apiserver and kube-scheduler
  std::string deploy_dir;  // the project's deploy/ (scheduler configuration, RBAC)
};

// etcd, kube-apiserver and, for the policies it can express, kube-scheduler (control_plane.h),
// with the trace's nodes, their pods' owners and the initial pods created through the API.
// Throws std::runtime_error when a part does not start.
std::unique_ptr<RealtimeCluster> kube_cluster(const Trace& trace,
                                              const KubeClusterOptions& options);

}  // namespace netscore::sim
