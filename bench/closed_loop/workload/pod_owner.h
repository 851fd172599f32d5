#pragma once

#include <string>

#include "bench/closed_loop/workload/workload.h"

// What a trace pod's owner means to each part that reads it, written once for both closed-loop
// levels.
namespace netscore::sim {

// The controlling owner's uid as the extender reads it from the pod's ownerReferences; empty for
// a pod without one.
inline std::string owner_uid(const PodSpec& pod) {
  return pod.owner_kind == OwnerKind::none ? std::string() : "uid-" + pod.replicaset;
}

// Whether kube-scheduler's PodTopologySpread system default constraints spread the pod's
// siblings: they select through Services, ReplicationControllers, ReplicaSets and StatefulSets
// only, so neither a Job's pods nor pods without an owner.
inline bool spread_by_default(const PodSpec& pod) {
  return pod.owner_kind == OwnerKind::replicaset || pod.owner_kind == OwnerKind::statefulset;
}

// The collector's workload key ("namespace/Kind/name", a ReplicaSet standing for its Deployment),
// as it derives it from the pod's controlling owner; empty without one.
inline std::string workload_key(const PodSpec& pod, const Trace& trace) {
  switch (pod.owner_kind) {
    case OwnerKind::replicaset:
      return pod.ns + "/Deployment/" + trace.deployments[pod.deployment].name;
    case OwnerKind::statefulset:
      return pod.ns + "/StatefulSet/" + pod.replicaset;
    case OwnerKind::job:
      return pod.ns + "/Job/" + pod.replicaset;
    case OwnerKind::none:
      break;
  }
  return {};
}

}  // namespace netscore::sim
