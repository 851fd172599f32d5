#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bench/closed_loop/processes/control_plane.h"
#include "bench/closed_loop/workload/workload.h"
#include "common/config.h"

// The scale benchmark's cluster on a real control plane (control_plane.h): fake Ready nodes, a
// backlog of pending pods created while no kube-scheduler runs (mostly ReplicaSets' pods, the rest
// without an owner), all created through the API by several threads at once so that 5,000 nodes
// take minutes, not hours. Not thread-safe.
namespace netscore::sim {

struct ScaleClusterOptions {
  std::string kube_bin;    // kube-apiserver and kube-scheduler
  std::string deploy_dir;  // the project's deploy/ (scheduler configuration, RBAC)
  std::vector<std::string> nodes;
  unsigned threads = 8;  // concurrent API requests while creating objects
};

class ScaleCluster {
 public:
  // Starts the control plane and creates the nodes (Ready, untainted) and the pods' namespace.
  // Throws std::runtime_error when a part does not start or a node is refused.
  explicit ScaleCluster(ScaleClusterOptions options);

  Environment collector_env() const { return control_plane_.collector_env(); }
  KubeConfig admin_kube() const { return control_plane_.admin_kube(); }

  // `pods` pending pods for kube-scheduler's default profile: `replicaset_share` of them in
  // ReplicaSets of `per_replicaset` pods (selectors matching them, so that PodTopologySpread's
  // default constraints find them), the rest without an owner. Throws when one is refused.
  void create_backlog(unsigned pods, double replicaset_share, unsigned per_replicaset);

  // kube-scheduler with the shipped configuration; without an extender URL, the extenders
  // section dropped; with `client_qps`, its API client's qps and burst set to it instead of
  // kube-scheduler's defaults (50 and 100), which otherwise pace the bindings. Returns once its
  // cache holds every node.
  void start_scheduler(const std::optional<std::string>& extender_url,
                       std::optional<unsigned> client_qps = std::nullopt);
  std::string scheduler_metrics() const { return control_plane_.scheduler_metrics(); }

 private:
  std::string pod_body(const PodSpec& spec, const std::string& owner_uid,
                       const std::string& node) const;

  ScaleClusterOptions options_;
  ControlPlane control_plane_;
  KubeApi api_;
  Trace trace_;  // the backlog's workloads and pods, for the object builders
};

}  // namespace netscore::sim
