#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/pod_annotations.h"
#include "common/label_rules.h"

// What the collector keeps of the Kubernetes API: a few fields per bound pod and per node, never
// the objects. Thread-safe: the watcher threads write, the publisher reads views.
namespace netscore::collector {

// The fields of a Pod object the correction uses.
struct PodFacts {
  std::string uid{};
  std::string node{};     // spec.nodeName; empty: not bound
  bool terminal = false;  // Succeeded or Failed: no container runs any more
  std::int64_t scheduled_ms =
      0;                       // PodScheduled lastTransitionTime, else creationTimestamp; 0 unknown
  double annotated_rate = -1;  // kExpectedRateAnnotation when present and valid, else < 0
  double annotated_transmit_rate = -1;  // kExpectedTransmitRateAnnotation, the same way
  std::string workload{};               // "ns/Kind/name" of the controlling owner; empty: none
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

// Per node: the pods counted on it, how much of their traffic the window has not absorbed yet, and
// how much traffic of pods already gone it still holds. A pod's receive rate is "known" when it has
// the receive annotation or its workload's traffic per pod has been learned from the measurements;
// its transmit rate only when it has the transmit annotation (learning fits receive rates alone).
// The other pods ("plain") are priced by the caller at the cluster's traffic per pod. A pod's
// missing (or held) part is counted once per direction: for transmit, the plain parts are all
// parts (pending_plain + pending_known_share) minus pending_transmit_known_share.
struct NodeLoad {
  std::string name{};
  bool in_cluster = false;  // a watched Node object
  std::uint64_t rule_mask = 0;
  std::uint32_t pods = 0;                  // bound, non-terminal pods
  std::uint32_t placed = 0;                // pods whose traffic is not wholly in the window yet
  std::uint32_t departed = 0;              // pods gone whose traffic the window still holds
  std::uint32_t priced_by_annotation = 0;  // of the placed and departed pods
  std::uint32_t priced_by_workload = 0;
  double settled = 0;        // sum over pods of the part of their traffic already in the window
  double pending_plain = 0;  // sum of the missing parts of pods without a known rate
  double pending_known = 0;  // sum of missing part x known bytes/s
  double pending_known_share = 0;  // sum of the missing parts of pods with a known rate
  double departed_plain = 0;       // sum of the parts still in the window of gone plain pods
  double departed_known = 0;       // the same x known bytes/s
  double departed_known_share = 0;
  std::uint32_t priced_by_transmit_annotation = 0;  // of the placed and departed pods
  double pending_transmit_known = 0;        // sum of missing part x annotated transmit bytes/s
  double pending_transmit_known_share = 0;  // sum of the missing parts of those pods
  double departed_transmit_known = 0;       // the same for gone pods, parts held
  double departed_transmit_known_share = 0;
};

// A node's measured receive rate (bytes/s), what learn() fits the pods to.
struct NodeRate {
  std::string node{};
  double rate = 0;
};

struct LoadWindow {
  std::int64_t now_ms = 0;
  std::int64_t lag_ms = 0;     // how long a new pod's traffic takes to reach the window at all
  std::int64_t window_ms = 0;  // the query's range
};

// The missing part of a pod's traffic `age_ms` after its placement: 1 until `lag`, then falling
// linearly to 0 over the window. Read `age_ms` as the time since a pod left and it is the part of
// its traffic the window still holds.
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
  void remove_pod(const std::string& uid, std::int64_t now_ms);
  void replace_nodes(const std::vector<NodeFacts>& nodes);
  void upsert_node(const NodeFacts& node);
  void remove_node(const std::string& name);

  // One NodeLoad per node that is watched or has pods, sorted by name.
  // Also forgets pods whose traffic is wholly in (or, for pods gone, out of) the window by now.
  std::vector<NodeLoad> loads(const LoadWindow& window);

  // Fits each node's measured rate as its own background plus the traffic per pod of each workload
  // on it, weighted by the part of each pod's traffic the window holds: a few multiplicative
  // (expectation-maximisation) steps from the previous fit, so a workload's rate sharpens as its
  // pods spread over nodes with different backgrounds. Costs O(pods) per call: call it once per
  // measurement, not per publish. A workload with at least one settled pod's worth of traffic
  // observed has a known rate from then on (until its last pod is gone).
  void learn(std::span<const NodeRate> measured, const LoadWindow& window);
  // Mean learned traffic per running pod (bytes/s): what a pod of an unknown workload is expected
  // to receive; nullopt before anything was learned.
  std::optional<double> rate_per_pod() const;
  // The learned traffic per pod of a workload key, nullopt when not known (yet).
  std::optional<double> workload_rate(const std::string& workload) const;
  std::size_t pod_count() const;
  std::size_t node_count() const;
  std::size_t recent_count() const;  // pods that may still be pending

 private:
  static constexpr std::uint32_t kNoWorkload = 0;
  struct PodRecord {
    std::uint32_t node = 0;                // index into node_names_
    std::uint32_t workload = kNoWorkload;  // index into workloads_
    float annotated_rate = -1;
    float annotated_transmit_rate = -1;
    std::int64_t placed_ms = 0;
  };
  struct Departed {
    PodRecord pod{};
    std::int64_t left_ms = 0;
  };
  struct Workload {
    std::string key{};
    std::uint32_t pods = 0;      // running
    std::uint32_t departed = 0;  // in departed_
    double rate = 0;             // learned bytes/s per pod
    bool known = false;
  };
  std::uint32_t intern(const std::string& node);
  std::uint32_t intern_workload(const std::string& key);
  // Frees a workload's record once no pod, running or gone, refers to it.
  void release_workload(std::uint32_t id);
  void insert_locked(const PodFacts& pod, std::int64_t placed_ms, std::int64_t now_ms);
  void erase_locked(std::unordered_map<std::string, PodRecord>::iterator it, std::int64_t now_ms);
  // Bytes/s of a pod when known (annotation, else its workload's learned rate), else < 0.
  double known_rate_locked(const PodRecord& pod) const;
  // The part of a gone pod's traffic still in the window.
  static double in_window(const Departed& gone, const LoadWindow& window);

  mutable std::mutex mutex_;
  std::int64_t recent_horizon_ms_;
  std::unordered_map<std::string, PodRecord> pods_;       // by uid
  std::unordered_map<std::string, std::int64_t> recent_;  // uid -> placement, pods maybe pending
  std::vector<Departed> departed_;  // pods gone within the horizon, oldest first
  std::vector<std::string> node_names_;
  std::vector<std::uint32_t> node_pods_;  // bound pods per node id
  std::vector<double> node_background_;   // learned bytes/s not explained by pods; < 0 unknown
  std::unordered_map<std::string, std::uint32_t> node_ids_;
  std::unordered_map<std::string, std::uint64_t> nodes_;  // watched nodes -> rule mask
  std::vector<Workload> workloads_;  // [kNoWorkload]: pods without a controlling owner
  std::unordered_map<std::string, std::uint32_t> workload_ids_;
  std::vector<std::uint32_t> free_workloads_;
  std::optional<double> rate_per_pod_;
};

}  // namespace netscore::collector
