#pragma once

#include <string>

#include "bench/closed_loop/workload/workload.h"
#include "common/pod_annotations.h"

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

// The label a project's pods carry (WorkloadParams::project_labels): app.kubernetes.io/name's
// value, or empty when the pod has none.
inline std::string project_label(const PodSpec& pod, const Trace& trace) {
  const Deployment& workload = trace.deployments[pod.deployment];
  return trace.params.project_labels ? workload.project : std::string();
}

// The collector's workload key as it derives it (collector/kube/kube_objects.cpp workload_of):
// "namespace/Kind/name" of the controlling owner, a ReplicaSet standing for its Deployment;
// without one, "namespace/label/<value>" of app.kubernetes.io/name, else of app (its workload's
// name: a bare group's, WorkloadParams::bare_app_label), else "namespace/generateName/<group>-"
// (WorkloadParams::bare_generate_name); else "namespace/created/<creationTimestamp>".
inline std::string workload_key(const PodSpec& pod, const Trace& trace) {
  switch (pod.owner_kind) {
    case OwnerKind::replicaset:
      return netscore::workload_key(pod.ns, "Deployment", trace.deployments[pod.deployment].name);
    case OwnerKind::statefulset:
      return netscore::workload_key(pod.ns, "StatefulSet", pod.replicaset);
    case OwnerKind::job:
      return netscore::workload_key(pod.ns, "Job", pod.replicaset);
    case OwnerKind::none:
      break;
  }
  if (const std::string project = project_label(pod, trace); !project.empty()) {
    return netscore::workload_key(pod.ns, kLabelWorkloadKind, project);
  }
  if (trace.params.bare_app_label) {
    return netscore::workload_key(pod.ns, kLabelWorkloadKind,
                                  trace.deployments[pod.deployment].name);
  }
  if (trace.params.bare_generate_name) {
    return netscore::workload_key(pod.ns, "generateName", pod.replicaset + "-");
  }
  return netscore::workload_key(pod.ns, kCreatedWorkloadKind, creation_timestamp(pod));
}

}  // namespace netscore::sim
