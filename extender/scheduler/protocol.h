#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/label_rules.h"

// The kube-scheduler extender v1 wire format (k8s.io/kube-scheduler/extender/v1, no json tags:
// PascalCase keys, nothing omitted, integer scores), as kube-scheduler's HTTPExtender sends and
// reads it. Pure functions, no shared state: safe to call from any thread.
namespace netscore::extender {

// Kubernetes supports 5000 nodes; anything far beyond is an attack or a bug, refused before
// scoring.
inline constexpr std::size_t kMaxRequestNodes = 65536;

struct ByteSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// One ExtenderArgs request. Names point into the buffer that was parsed.
struct ExtenderArgs {
  std::vector<std::string_view> names;
  // shm::name_hash(names[i]), computed once by the duplicate check and reused by the table lookup.
  std::vector<std::uint64_t> name_hashes;
  // True when the names came from NodeNames (nodeCacheCapable: true); false when they came from
  // Nodes.items[].metadata.name, in which case item_spans[i] is node i's JSON object in the
  // original body, echoed back by the filter (the scheduler reads Nodes.items in that mode).
  bool node_cache_capable = true;
  std::vector<ByteSpan> item_spans;
  // Pod.metadata namespace, name and uid (empty when absent), for the /explain decision log.
  std::string_view pod_namespace;
  std::string_view pod_name;
  std::string_view pod_uid;
  // uid of the Pod's controlling ownerReference (controller: true), empty when it has none: the
  // workload whose replicas prioritize spreads.
  std::string_view pod_owner_uid;
  // Pod.metadata.labels["app.kubernetes.io/name"], empty when absent: the workload of a pod
  // without a controlling owner, whose burst prioritize spreads.
  std::string_view pod_app_name;
  // Pod.metadata.annotations with string values, one entry per key (the last duplicate wins).
  std::vector<KeyValue> pod_annotations;
  // Nodes mode only: node i's metadata.labels are node_labels[label_ranges[i].begin, .end).
  std::vector<KeyValue> node_labels;
  std::vector<ByteSpan> label_ranges;
};

// The value of `key` in `pairs`, if present.
std::optional<std::string_view> find_value(std::span<const KeyValue> pairs, std::string_view key);

// Parses `body` in place (RapidJSON in-situ: `body` is overwritten and must stay alive while the
// result is used). Follows Go encoding/json where it matters: top-level keys match
// case-insensitively, the last duplicate wins, unknown keys are ignored. Returns an error message
// for malformed JSON, invalid UTF-8, wrong types, a missing Pod, both node fields null, an empty or
// duplicated node name, or more than kMaxRequestNodes nodes.
std::optional<std::string> parse_extender_args(std::string& body, ExtenderArgs& out);

// HostPriorityList: a bare array of {"Host":name,"Score":int}.
void write_host_priority_list(std::span<const std::string_view> names,
                              std::span<const std::int64_t> scores, std::string& out);

struct FailedNode {
  std::size_t index = 0;  // into ExtenderArgs::names
  std::string_view reason;
};

// ExtenderFilterResult. `passed` are indices into args.names. With node_cache_capable the passing
// names go to NodeNames; otherwise the passing node objects are copied from `original_body` into
// Nodes.items. `failed` go to FailedAndUnresolvableNodes (FailedNodes stays empty). Error is always
// empty: an error would fail the filter call, and the scheduler skips an ignorable extender's
// errors and places the pod anyway.
void write_filter_result(const ExtenderArgs& args, std::string_view original_body,
                         std::span<const std::size_t> passed, std::span<const FailedNode> failed,
                         std::string& out);

// {"error":"..."} for 4xx answers.
std::string error_body(std::string_view message);

}  // namespace netscore::extender
