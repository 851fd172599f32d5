#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "bench/closed_loop/processes/control_plane_files.h"
#include "bench/closed_loop/workload/workload.h"
#include "tests/support/fake_kube_objects.h"

// The Kubernetes objects the closed loop creates in a real API server, as JSON request bodies:
// the trace's nodes, pods and their controlling owners, and the collector's RBAC. The nodes and
// pods have the shape SchedulerModel assumes (4 CPU / 16 GiB / 110 pods nodes, 100m / 256Mi pods),
// and each owner's selector matches its pods' labels as a controller's does, so that
// kube-scheduler's PodTopologySpread default constraints find a pod's siblings as in a real
// cluster (ReplicaSets and StatefulSets; Jobs and owner-less pods have none). Pure.
namespace netscore::sim::kube_json {

using Labels = std::map<std::string, std::string>;

// The pods' one container's image, and their sandbox's as cAdvisor reports it: pods never run (no
// kubelet), so any image name does.
inline constexpr std::string_view kPodImage = "registry.k8s.io/pause:3.9";

// The API group/version and kind of an owner ("apps/v1", "ReplicaSet"); the kind is empty for
// OwnerKind::none.
struct OwnerType {
  std::string_view api_version;
  std::string_view kind;
  std::string_view resource;  // the collection's path segment: "replicasets"
};
OwnerType owner_type(OwnerKind kind);

// The collection a pod's owner is created in: "/apis/apps/v1/namespaces/NS/replicasets".
std::string owner_collection(OwnerKind kind, std::string_view ns);

// The labels of a trace pod: "app" (its deployment; on a pod without an owner only with
// WorkloadParams::bare_app_label), and what its controller would add: the
// pod-template-hash of a ReplicaSet's pods, the controller-revision-hash of a StatefulSet's, the
// job-name and controller-uid (the Job's UID) of a Job's; app.kubernetes.io/name=<project> on a
// project's pods when the trace labels them (WorkloadParams::project_labels).
Labels pod_labels(const Trace& trace, const PodSpec& pod, std::string_view owner_uid);

// The metadata.generateName its creator would set: "<owner>-" for a ReplicaSet's or a Job's pod,
// "<group>-" for a pod without an owner (a CI system names its runners so) unless the trace's
// WorkloadParams::bare_generate_name is off; empty for a StatefulSet's, whose names are ordinals.
std::string generate_name(const Trace& trace, const PodSpec& pod);

// The owner object of a trace pod (its kind must not be none), selecting that pod's labels:
// ReplicaSets and StatefulSets by matchLabels, Jobs by the selector the API server generates.
std::string owner(const Trace& trace, const PodSpec& pod, unsigned replicas);

// The controlling owner reference of a pod whose owner is of `kind`; nullopt for OwnerKind::none.
std::optional<testing::kube::OwnerReference> owner_reference(OwnerKind kind, std::string_view name,
                                                             std::string_view uid);

// The annotations of a trace pod: its declared bandwidth ceilings (kubernetes.io/ingress-bandwidth,
// egress-bandwidth, bits per second) when the trace gives it any
// (WorkloadParams::ceiling_fraction), and its declared traffic (netscore.io/expected-*-rate, bytes
// per second; WorkloadParams::declared_fraction).
Labels pod_annotations(const PodSpec& pod);

// A trace pod as the model: namespace, name, generate_name, pod_labels, pod_annotations, its
// creation_second and its controller's reference (owner_uid empty for OwnerKind::none); node and
// scheduler unset.
testing::kube::Pod trace_pod(const Trace& trace, const PodSpec& pod, std::string_view owner_uid);

// A pod as created through the API: its namespace, name (and generateName), labels, annotations,
// controller reference (none without), spec.schedulerName and spec.nodeName (empty: for the
// scheduler to bind), with the requests SchedulerModel assumes; restartPolicy Never for a Job's
// pod, as its template must say.
std::string pod(const testing::kube::Pod& pod);

// A merge patch of a pod's status: Running, PodScheduled since `scheduled_s` (Unix seconds), as a
// kubelet reports a pod running since then.
std::string pod_running_status(std::int64_t scheduled_s);

// A v1 Binding of pod `name` to `node` (POST .../pods/NAME/binding).
std::string binding(std::string_view name, std::string_view node);

// A Node labelled kubernetes.io/hostname.
std::string node(std::string_view name);
// A merge patch of a node's status (the status subresource): Ready since `now_s`, with the
// capacity and allocatable resources SchedulerModel assumes, as a kubelet posts them.
std::string node_ready_status(std::int64_t now_s);
// A merge patch removing the node's taints: the not-ready taint the TaintNodesByCondition
// admission plugin adds at creation, which the node lifecycle controller lifts once the node is
// Ready.
std::string node_untainted();

std::string namespace_object(std::string_view name);
std::string service_account(std::string_view name);
// An Opaque Secret holding one key (stringData: the API server encodes it).
std::string secret(std::string_view name, std::string_view key, std::string_view value);
std::string cluster_role(const ClusterRoleSpec& role);
// Binds ClusterRole `role` to the user `user` under the name `name`.
std::string cluster_role_binding(std::string_view name, std::string_view role,
                                 std::string_view user);

}  // namespace netscore::sim::kube_json
