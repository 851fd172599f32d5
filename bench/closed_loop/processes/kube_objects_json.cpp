#include "bench/closed_loop/processes/kube_objects_json.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "bench/closed_loop/workload/pod_owner.h"
#include "common/pod_annotations.h"
#include "tests/support/fake_kube_objects.h"

namespace netscore::sim::kube_json {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// What SchedulerModel::least_allocated assumes of the nodes and the pods.
constexpr std::string_view kNodeCpu = "4", kNodeMemory = "16Gi", kNodePods = "110";
constexpr std::string_view kPodCpu = "100m", kPodMemory = "256Mi";

// The StatefulSet controller labels a pod with its revision's name, "<set>-<hash of the
// template>"; a trace's set has one revision, hashed here from its name (FNV-1a, 32 bits) so that
// the label is a valid label value whatever the trace holds.
std::string revision_name(std::string_view set) {
  std::uint32_t hash = 2166136261U;
  for (const char c : set) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619U;
  return fmt::format("{}-{:08x}", set, hash);
}

void string(Writer& w, std::string_view text) {
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void member(Writer& w, std::string_view key, std::string_view value) {
  string(w, key);
  string(w, value);
}

// String members, in order.
void members(Writer& w,
             std::initializer_list<std::pair<std::string_view, std::string_view>> key_values) {
  for (const auto& [key, value] : key_values) member(w, key, value);
}

// "key": {what `inside` writes}.
template <class Inside>
void object(Writer& w, std::string_view key, const Inside& inside) {
  string(w, key);
  w.StartObject();
  inside();
  w.EndObject();
}

void labels(Writer& w, std::string_view key, const Labels& values) {
  object(w, key, [&] {
    for (const auto& [name, value] : values) member(w, name, value);
  });
}

// "key": [{what `inside` writes}]: a list of one object.
template <class Inside>
void list_of_one(Writer& w, std::string_view key, const Inside& inside) {
  string(w, key);
  w.StartArray();
  w.StartObject();
  inside();
  w.EndObject();
  w.EndArray();
}

// The text of one JSON object whose members `inside` writes.
template <class Inside>
std::string json(const Inside& inside) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  inside(w);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

// {"apiVersion":..., "kind":..., "metadata":{"name":..., ["namespace":...,] what `metadata`
// writes}, what `rest` writes}.
template <class Metadata, class Rest>
std::string kube_object(std::string_view api_version, std::string_view kind, std::string_view name,
                        std::string_view ns, const Metadata& metadata, const Rest& rest) {
  return json([&](Writer& w) {
    members(w, {{"apiVersion", api_version}, {"kind", kind}});
    object(w, "metadata", [&] {
      member(w, "name", name);
      if (!ns.empty()) member(w, "namespace", ns);
      metadata(w);
    });
    rest(w);
  });
}

void nothing(Writer&) {}

// An object with nothing but its name in its metadata.
template <class Rest>
std::string named_object(std::string_view api_version, std::string_view kind, std::string_view name,
                         const Rest& rest) {
  return kube_object(api_version, kind, name, {}, nothing, rest);
}

void resources(Writer& w, std::string_view key, std::string_view cpu, std::string_view memory,
               std::string_view pods = {}) {
  object(w, key, [&] {
    members(w, {{"cpu", cpu}, {"memory", memory}});
    if (!pods.empty()) member(w, "pods", pods);
  });
}

// The pod spec's members (inside an open spec object).
void pod_spec(Writer& w, bool job) {
  list_of_one(w, "containers", [&] {
    members(w, {{"name", "app"}, {"image", kPodImage}});
    object(w, "resources", [&] { resources(w, "requests", kPodCpu, kPodMemory); });
  });
  member(w, "restartPolicy", job ? "Never" : "Always");
  // No kubelet would mount a token: the ServiceAccount admission plugin need not add one.
  string(w, "automountServiceAccountToken");
  w.Bool(false);
}

}  // namespace

OwnerType owner_type(OwnerKind kind) {
  switch (kind) {
    case OwnerKind::replicaset:
      return {"apps/v1", "ReplicaSet", "replicasets"};
    case OwnerKind::statefulset:
      return {"apps/v1", "StatefulSet", "statefulsets"};
    case OwnerKind::job:
      return {"batch/v1", "Job", "jobs"};
    case OwnerKind::none:
      break;
  }
  return {};
}

std::string owner_collection(OwnerKind kind, std::string_view ns) {
  const OwnerType type = owner_type(kind);
  return fmt::format("/apis/{}/namespaces/{}/{}", type.api_version, ns, type.resource);
}

Labels pod_labels(const Trace& trace, const PodSpec& pod, std::string_view owner_uid) {
  Labels out;
  if (pod.owner_kind != OwnerKind::none || trace.params.bare_app_label) {
    out["app"] = trace.deployments[pod.deployment].name;
  }
  switch (pod.owner_kind) {
    case OwnerKind::replicaset:
      out["pod-template-hash"] = pod.template_hash;
      break;
    case OwnerKind::statefulset:
      out["controller-revision-hash"] = revision_name(pod.replicaset);
      break;
    case OwnerKind::job:
      out["job-name"] = pod.replicaset;
      out["controller-uid"] = owner_uid;
      break;
    case OwnerKind::none:
      break;
  }
  if (const std::string project = project_label(pod, trace); !project.empty()) {
    out["app.kubernetes.io/name"] = project;
  }
  return out;
}

std::string generate_name(const Trace& trace, const PodSpec& pod) {
  if (pod.owner_kind == OwnerKind::none && !trace.params.bare_generate_name) return {};
  return pod.owner_kind == OwnerKind::statefulset ? std::string() : pod.replicaset + "-";
}

std::string owner(const Trace& trace, const PodSpec& pod, unsigned replicas) {
  const OwnerType type = owner_type(pod.owner_kind);
  const Labels app{{"app", trace.deployments[pod.deployment].name}};
  // A StatefulSet's revisions share its selector; a ReplicaSet is one revision; a Job's selector
  // and its template's controller-uid label are generated by the API server from its UID.
  Labels selector = app;
  if (pod.owner_kind == OwnerKind::replicaset) selector["pod-template-hash"] = pod.template_hash;
  return kube_object(
      type.api_version, type.kind, pod.replicaset, pod.ns,
      [&](Writer& w) { labels(w, "labels", app); },
      [&](Writer& w) {
        object(w, "spec", [&] {
          if (pod.owner_kind != OwnerKind::job) {
            string(w, "replicas");
            w.Uint(replicas);
            object(w, "selector", [&] { labels(w, "matchLabels", selector); });
          }
          if (pod.owner_kind == OwnerKind::statefulset) member(w, "serviceName", pod.replicaset);
          object(w, "template", [&] {
            object(w, "metadata",
                   [&] { labels(w, "labels", pod.owner_kind == OwnerKind::job ? app : selector); });
            object(w, "spec", [&] { pod_spec(w, pod.owner_kind == OwnerKind::job); });
          });
        });
      });
}

std::optional<testing::kube::OwnerReference> owner_reference(OwnerKind kind, std::string_view name,
                                                             std::string_view uid) {
  if (kind == OwnerKind::none) return std::nullopt;
  const OwnerType type = owner_type(kind);
  return testing::kube::OwnerReference{.kind = std::string(type.kind),
                                       .name = std::string(name),
                                       .uid = std::string(uid),
                                       .api_version = std::string(type.api_version)};
}

testing::kube::Pod trace_pod(const Trace& trace, const PodSpec& pod, std::string_view owner_uid) {
  return {.ns = pod.ns,
          .name = pod.name,
          .generate_name = generate_name(trace, pod),
          .labels = pod_labels(trace, pod, owner_uid),
          .annotations = pod_annotations(pod),
          .created_s = creation_second(pod),
          .owner = owner_reference(pod.owner_kind, pod.replicaset, owner_uid)};
}

Labels pod_annotations(const PodSpec& pod) {
  Labels annotations;
  // Bits per second, as the CNI bandwidth plugin reads them.
  const auto declare = [&](std::string_view name, double bytes_per_s) {
    if (bytes_per_s >= 0) annotations.emplace(name, fmt::format("{:.0f}", bytes_per_s * 8));
  };
  declare(kIngressBandwidthAnnotation, pod.receive_ceiling);
  declare(kEgressBandwidthAnnotation, pod.transmit_ceiling);
  // Bytes per second, as the annotations' readers take them.
  const auto expect = [&](std::string_view name, double bytes_per_s) {
    if (bytes_per_s >= 0) annotations.emplace(name, fmt::format("{:.0f}", bytes_per_s));
  };
  expect(kExpectedRateAnnotation, pod.declared_rate);
  expect(kExpectedTransmitRateAnnotation, pod.declared_transmit_rate);
  return annotations;
}

std::string pod(const testing::kube::Pod& pod) {
  return kube_object(
      "v1", "Pod", pod.name, pod.ns,
      [&](Writer& w) {
        if (!pod.generate_name.empty()) member(w, "generateName", pod.generate_name);
        labels(w, "labels", pod.labels);
        if (!pod.annotations.empty()) labels(w, "annotations", pod.annotations);
        if (!pod.owner) return;
        list_of_one(w, "ownerReferences", [&] {
          members(w, {{"apiVersion", pod.owner->api_version},
                      {"kind", pod.owner->kind},
                      {"name", pod.owner->name},
                      {"uid", pod.owner->uid}});
          string(w, "controller");
          w.Bool(true);
          string(w, "blockOwnerDeletion");
          w.Bool(true);
        });
      },
      [&](Writer& w) {
        object(w, "spec", [&] {
          pod_spec(w, pod.owner && pod.owner->kind == owner_type(OwnerKind::job).kind);
          member(w, "schedulerName", pod.scheduler_name);
          if (!pod.node.empty()) member(w, "nodeName", pod.node);
        });
      });
}

std::string pod_running_status(std::int64_t scheduled_s) {
  const std::string since = testing::kube::rfc3339(scheduled_s);
  return json([&](Writer& w) {
    object(w, "status", [&] {
      members(w, {{"phase", "Running"}, {"startTime", since}});
      list_of_one(w, "conditions", [&] {
        members(w, {{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", since}});
      });
    });
  });
}

std::string binding(std::string_view name, std::string_view node) {
  return named_object("v1", "Binding", name, [&](Writer& w) {
    object(w, "target", [&] {
      members(w, {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}});
    });
  });
}

std::string node(std::string_view name) {
  return kube_object(
      "v1", "Node", name, {},
      [&](Writer& w) {
        labels(w, "labels", {{"kubernetes.io/hostname", std::string(name)}});
      },
      nothing);
}

std::string node_ready_status(std::int64_t now_s) {
  const std::string now = testing::kube::rfc3339(now_s);
  return json([&](Writer& w) {
    object(w, "status", [&] {
      resources(w, "capacity", kNodeCpu, kNodeMemory, kNodePods);
      resources(w, "allocatable", kNodeCpu, kNodeMemory, kNodePods);
      list_of_one(w, "conditions", [&] {
        members(w, {{"type", "Ready"},
                    {"status", "True"},
                    {"reason", "KubeletReady"},
                    {"message", "no kubelet: the closed-loop benchmark posts this status"},
                    {"lastHeartbeatTime", now},
                    {"lastTransitionTime", now}});
      });
    });
  });
}

std::string node_untainted() {
  return R"({"spec":{"taints":null}})";
}

std::string namespace_object(std::string_view name) {
  return named_object("v1", "Namespace", name, nothing);
}

std::string service_account(std::string_view name) {
  return named_object("v1", "ServiceAccount", name, nothing);
}

std::string secret(std::string_view name, std::string_view key, std::string_view value) {
  return named_object("v1", "Secret", name,
                      [&](Writer& w) { object(w, "stringData", [&] { member(w, key, value); }); });
}

std::string cluster_role(const ClusterRoleSpec& role) {
  return named_object("rbac.authorization.k8s.io/v1", "ClusterRole", role.name, [&](Writer& w) {
    string(w, "rules");
    w.StartArray();
    for (const auto& rule : role.rules) {
      w.StartObject();
      for (const auto& [key, values] : rule) {
        string(w, key);
        w.StartArray();
        for (const auto& value : values) string(w, value);
        w.EndArray();
      }
      w.EndObject();
    }
    w.EndArray();
  });
}

std::string cluster_role_binding(std::string_view name, std::string_view role,
                                 std::string_view user) {
  return named_object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", name, [&](Writer& w) {
    object(w, "roleRef", [&] {
      members(w,
              {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}});
    });
    list_of_one(w, "subjects", [&] {
      members(w, {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", user}});
    });
  });
}

}  // namespace netscore::sim::kube_json
