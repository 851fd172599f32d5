#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "bench/closed_loop/placement/policy.h"

// A kubelet's /metrics/cadvisor page as kube-prometheus stores it, for the network counters only:
// container_network_{receive,transmit}_bytes_total of each pod's sandbox (the pause container,
// which owns the pod's network namespace: `container=""`, `image` the pause image, `name` its
// container id, `id` its cgroup path) on interface eth0, and of each node's root cgroup (`id="/"`,
// every pod label empty: the host's interface). The page carries the labels kube-prometheus'
// kubelet ServiceMonitor gives its targets (job, metrics_path, node, instance, endpoint, service),
// so that one exporter serving every node, scraped with honor_labels, stores what a cluster's
// Prometheus does. Pure.
namespace netscore::sim {

// Bytes since the pod's sandbox started, each direction.
struct PodCounters {
  std::string ns;
  std::string name;
  std::size_t node = 0;
  double receive = 0, transmit = 0;
};

// Per node (index as in `nodes`): its interface's counters.
struct NodeCounters {
  std::span<const std::string> nodes;
  std::span<const double> receive, transmit;
};

// The page; empty for PodSeries::none. PodSeries::unlabelled leaves the sandboxes' namespace, pod,
// image and name empty, as runtimes whose containers cAdvisor cannot inspect do: only the cgroup
// path (with the pod's UID) tells one pod from another.
std::string cadvisor_exposition(PodSeries series, const NodeCounters& nodes,
                                std::span<const PodCounters> pods);

// A pod sandbox's cgroup path ("/kubepods/burstable/pod<UID>/<sandbox id>": the pods request CPU
// without a limit) and its container id (64 hex digits). No runtime assigns them here: both are
// made up from the pod's namespace and name, the same on every page.
std::string pod_cgroup_path(const PodCounters& pod);
std::string sandbox_id(const PodCounters& pod);

}  // namespace netscore::sim
