#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/label_rules.h"

// What the collector keeps of the Kubernetes API: a few fields per bound pod and per node, never
// the objects. Thread-safe: the watcher threads write, the publisher reads views.
namespace netscore::collector {

// Annotation a workload sets to say how much traffic one of its pods receives (bytes/s).
inline constexpr std::string_view kExpectedRateAnnotation = "netscore.io/expected-receive-rate";

// The fields of a Pod object the correction uses.
struct PodFacts {
  std::string uid{};
  std::string node{};     // spec.nodeName; empty: not bound
  bool terminal = false;  // Succeeded or Failed: no container runs any more
  std::int64_t scheduled_ms =
      0;                       // PodScheduled lastTransitionTime, else creationTimestamp; 0 unknown
  double annotated_rate = -1;  // kExpectedRateAnnotation when present and valid, else < 0
  std::string resource_version{};
};

struct NodeFacts {
  std::string name{};
  std::uint64_t rule_mask = 0;
  std::string resource_version{};
};

// Parsers of one object as JSON (a list item or a watch event's object). nullopt: not an object of
// that kind (no uid / no name), which the watcher counts as malformed.
std::optional<PodFacts> parse_pod(std::string_view json);
std::optional<NodeFacts> parse_node(std::string_view json, const LabelRules& rules);
// "2023-03-01T10:00:00Z" (fraction and offsets allowed) -> Unix ms; nullopt when malformed.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text);

// Per node: the pods counted on it and how much of their traffic the window has not absorbed.
struct NodeLoad {
  std::string name{};
  bool in_cluster = false;  // a watched Node object
  std::uint64_t rule_mask = 0;
  std::uint32_t pods = 0;        // bound, non-terminal pods
  std::uint32_t placed = 0;      // pods whose traffic is not wholly in the window yet
  double settled = 0;            // sum over pods of the part of their traffic already in the window
  double pending_plain = 0;      // sum of the missing parts of pods without the annotation
  double pending_annotated = 0;  // sum of missing part x annotated bytes/s
  double pending_annotated_share = 0;  // sum of the missing parts of annotated pods
};

struct LoadWindow {
  std::int64_t now_ms = 0;
  std::int64_t lag_ms = 0;     // how long a new pod's traffic takes to reach the window at all
  std::int64_t window_ms = 0;  // the query's range
};

// The missing part of a pod's traffic `age_ms` after its placement: 1 until `lag`, then falling
// linearly to 0 over the window.
double pending_fraction(std::int64_t age_ms, const LoadWindow& window);

// Memory is one small record per bound pod plus one per node; loads() costs O(nodes + pods placed
// within `recent_horizon_ms`), not O(pods): older pods are only counted, per node.
class ClusterState {
 public:
  // Pods placed longer ago than this are never pending: set it to lag + window or more.
  explicit ClusterState(std::int64_t recent_horizon_ms = 3600000)
      : recent_horizon_ms_(recent_horizon_ms) {}

  // A relist: pods missing from `pods` are gone. A pod already known keeps its placement time.
  void replace_pods(const std::vector<PodFacts>& pods, std::int64_t now_ms);
  // A watch event. A pod first seen bound by the watch counts from `now_ms`: the event is the
  // placement, and its condition time has only second precision.
  void upsert_pod(const PodFacts& pod, std::int64_t now_ms);
  void remove_pod(const std::string& uid);
  void replace_nodes(const std::vector<NodeFacts>& nodes);
  void upsert_node(const NodeFacts& node);
  void remove_node(const std::string& name);

  // One NodeLoad per node that is watched or has pods, sorted by name.
  // Also forgets pods whose traffic is wholly in the window by now.
  std::vector<NodeLoad> loads(const LoadWindow& window);
  std::size_t pod_count() const;
  std::size_t node_count() const;
  std::size_t recent_count() const;  // pods that may still be pending

 private:
  struct PodRecord {
    std::uint32_t node = 0;  // index into node_names_
    float annotated_rate = -1;
    std::int64_t placed_ms = 0;
  };
  std::uint32_t intern(const std::string& node);
  void insert_locked(const PodFacts& pod, std::int64_t placed_ms, std::int64_t now_ms);
  void erase_locked(std::unordered_map<std::string, PodRecord>::iterator it);

  mutable std::mutex mutex_;
  std::int64_t recent_horizon_ms_;
  std::unordered_map<std::string, PodRecord> pods_;       // by uid
  std::unordered_map<std::string, std::int64_t> recent_;  // uid -> placement, pods maybe pending
  std::vector<std::string> node_names_;
  std::vector<std::uint32_t> node_pods_;  // bound pods per node id
  std::unordered_map<std::string, std::uint32_t> node_ids_;
  std::unordered_map<std::string, std::uint64_t> nodes_;  // watched nodes -> rule mask
};

}  // namespace netscore::collector
