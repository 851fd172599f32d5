#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The Kubernetes object model of the tests and the benchmarks: the few fields of Pods and Nodes a
// scheduler and a placement watcher read, as FakeKubeApiServer serves them (compact JSON, as the
// API server's encoder writes it, and the field selectors the fake understands), and as the
// closed loop creates them in a real API server (bench/closed_loop/processes/kube_objects_json.h
// writes the request bodies from the same structs). Pure: thread-safe.
namespace netscore::testing::kube {

using StringMap = std::map<std::string, std::string>;

enum class Resource { pods, nodes };

// A pod's controlling owner (ownerReferences[] with controller: true), from which a watcher tells
// which workload a pod belongs to.
struct OwnerReference {
  std::string kind{};  // "ReplicaSet"
  std::string name{};
  std::string uid{};
  std::string api_version = "apps/v1";  // "batch/v1" for a Job
};

struct Pod {
  std::string ns{};
  std::string name{};
  // metadata.generateName, the prefix a controller or a CI system asks a name of; kept beside the
  // name (which the API server then uses as given).
  std::string generate_name{};
  std::string uid{};
  std::uint64_t resource_version = 0;
  std::string node{};  // spec.nodeName; empty until bound
  std::string phase = "Pending";
  StringMap labels{};
  StringMap annotations{};
  std::int64_t created_s = 0;                 // creationTimestamp, Unix seconds
  std::optional<std::int64_t> scheduled_s{};  // PodScheduled=True lastTransitionTime
  std::optional<std::int64_t> deleting_s{};   // deletionTimestamp
  std::optional<OwnerReference> owner{};      // served; not read from POSTed pods
  std::string scheduler_name{};  // spec.schedulerName of a pod created in a real API server
};

struct Node {
  std::string name{};
  std::string uid{};
  std::uint64_t resource_version = 0;
  StringMap labels{};
  std::int64_t created_s = 0;
};

// "2023-03-01T10:00:00Z": RFC 3339, UTC, whole seconds, as metav1.Time marshals.
std::string rfc3339(std::int64_t unix_seconds);

// with_kind: objects in watch events and single GETs carry kind/apiVersion; list items do not.
std::string to_json(const Pod& pod, bool with_kind);
std::string to_json(const Node& node, bool with_kind);
// The empty object of the watched kind a BOOKMARK carries.
std::string bookmark_object(Resource resource, std::uint64_t resource_version);
// A metav1.Status; `continue_token` goes into its metadata (pagination 410).
std::string status_json(unsigned code, std::string_view reason, std::string_view message,
                        std::string_view continue_token = {});

// One term of a fieldSelector: field (=|==|!=) value.
struct FieldTerm {
  std::string field{};
  std::string value{};
  bool negated = false;
};

// Terms joined by ',' (logical AND). Pods: spec.nodeName, status.phase, metadata.name,
// metadata.namespace; nodes: metadata.name. nullopt (with `error`) for anything else: the API
// server answers 400 to an unsupported field.
std::optional<std::vector<FieldTerm>> parse_field_selector(Resource resource, std::string_view text,
                                                           std::string& error);
bool matches(const std::vector<FieldTerm>& selector, const Pod& pod);
bool matches(const std::vector<FieldTerm>& selector, const Node& node);

// What a pod created by POST carries: metadata.{name,generateName,namespace,labels,annotations},
// spec.nodeName, status.phase. nullopt (with `error`) for malformed JSON or a missing name.
std::optional<Pod> pod_from_json(std::string_view body, std::string_view url_namespace,
                                 std::string& error);

struct Binding {
  std::string name{};
  std::string uid{};  // precondition when non-empty
  std::string target_kind{};
  std::string target_name{};
  StringMap annotations{};
};
std::optional<Binding> binding_from_json(std::string_view body, std::string& error);

// metadata.labels of a JSON merge patch (RFC 7386): a value per key, nullopt for a key to remove
// (null). nullopt (with `error`) when the body is not a JSON object or a label value is neither a
// string nor null.
using LabelPatch = std::map<std::string, std::optional<std::string>, std::less<>>;
std::optional<LabelPatch> label_patch_from_json(std::string_view body, std::string& error);

}  // namespace netscore::testing::kube
