#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/model/inputs.h"
#include "common/model/workload_learning.h"

// The placement ledger: the pods bound to each node, when each was placed or left, and what the
// window holds of their traffic, turned into NodeLoad per node for the correction, and what
// workload learning learned of each workload. A few fields per bound pod and per node, never the
// objects. Not thread-safe: the collector keeps one under a lock (collector/kube/cluster_state),
// the simulator one per run.
namespace netscore::model {

// The fields of a Pod object the correction uses.
struct PodFacts {
  std::string uid{};
  std::string node{};  // spec.nodeName; empty: not bound
  // Succeeded or Failed: no container runs any more; or terminating (a deletionTimestamp): out of
  // its Services' endpoints at once, its traffic draining, and its controller's replacement
  // already being placed, which must not find it still counted where it ran.
  bool terminal = false;
  std::int64_t scheduled_ms =
      0;                       // PodScheduled lastTransitionTime, else creationTimestamp; 0 unknown
  double annotated_rate = -1;  // kExpectedRateAnnotation when present and valid, else < 0
  double annotated_transmit_rate = -1;  // kExpectedTransmitRateAnnotation, the same way
  // Bytes/s of the declared kIngressBandwidthAnnotation / kEgressBandwidthAnnotation; < 0 none.
  double receive_ceiling = -1;
  double transmit_ceiling = -1;
  std::string workload{};  // "ns/Kind/name" of the controlling owner; empty: none
  std::string resource_version{};
  std::string name{};         // "namespace/name"
  bool host_network = false;  // spec.hostNetwork: the pod's traffic is its node's
  bool nominated = false;     // labelled kRebalanceLabel=kRebalanceLabelValue
};

struct NodeFacts {
  std::string name{};
  std::uint64_t rule_mask = 0;
  std::string resource_version{};
};

// One pod's measured traffic (bytes/s over the window; < 0: that direction not measured).
struct MeasuredPod {
  std::string name{};  // "namespace/name"
  double receive = -1;
  double transmit = -1;
};

// Whether a rate over the window read as of `read.now_ms` measures a pod placed `age_ms` before:
// the window holds kMeasuredAfterHeld of its traffic at least.
bool window_measures_pod(std::int64_t age_ms, const LoadWindow& read);

// A bound pod off its node's network, and when it was placed (Unix ms).
struct PlacedPod {
  std::string name{};  // "namespace/name"
  std::int64_t placed_ms = 0;
};

// A pod's price in one direction and what set it; rate < 0: not known, the cluster's average.
struct PodPrice {
  double rate = -1;
  PriceSource source = PriceSource::average;
};

// A pod placed within the ledger's horizon whose traffic the window may not hold whole yet, with
// what prices it now (views into the ledger: valid until it next changes).
struct RecentPod {
  std::string_view uid{};
  std::string_view name{};  // "namespace/name"; empty on the host network
  std::string_view node{};
  std::int64_t placed_ms = 0;
  PodPrice receive{};
  PodPrice transmit{};
};

// A bound pod off its node's network, as the rebalance nomination sees it.
struct BoundPod {
  std::string name{};  // "namespace/name"
  std::string node{};
  std::string workload{};           // "ns/Kind/name"; empty: none
  std::uint32_t workload_pods = 0;  // its workload's running pods
  std::int64_t placed_ms = 0;
  PodPrice receive{};
  PodPrice transmit{};
  bool nominated = false;
};

// What one fit of workload learning reads, copied out of the ledger so that the fit, which costs
// O(pods x kLearningMeasurements), runs without the lock a collector keeps the ledger under.
struct LearningRound {
  std::vector<double> node_rate, node_transmit_rate;  // node_transmit_rate empty: none measured
  std::vector<HeldPod> pods;
  std::vector<std::uint32_t> running_pods;  // by workload id
  // Workload ids released since the last round, in order: the learner forgets them before it
  // fits, since an id may now name another workload.
  std::vector<std::uint32_t> released;
  // Forgets the released workloads and fits this round's measurement: `learner` must be the one
  // every round of this ledger was fitted on.
  void fit(WorkloadLearner& learner) const;
};

// Memory is one small record per bound pod plus one per node; loads() costs O(nodes + pods placed
// within `recent_horizon_ms`), not O(pods): older pods are only counted, per node.
class PlacementLedger {
 public:
  // Pods placed longer ago than this are never pending: set it to lag + window or more.
  explicit PlacementLedger(std::int64_t recent_horizon_ms = 3600000)
      : recent_horizon_ms_(recent_horizon_ms) {}
  // Its indexes point into its own pods' records: moved, never copied.
  PlacementLedger(const PlacementLedger&) = delete;
  PlacementLedger& operator=(const PlacementLedger&) = delete;
  PlacementLedger(PlacementLedger&&) = default;
  PlacementLedger& operator=(PlacementLedger&&) = default;

  // A relist: pods missing from `pods` are gone. A pod already known keeps its placement time.
  void replace_pods(const std::vector<PodFacts>& pods, std::int64_t now_ms);
  // A watch event. A pod first seen bound by the watch counts from `now_ms`: the event is the
  // placement, and its condition time has only second precision.
  void upsert_pod(const PodFacts& pod, std::int64_t now_ms);
  void remove_pod(const std::string& uid, std::int64_t now_ms);
  void replace_nodes(const std::vector<NodeFacts>& nodes);
  void upsert_node(const NodeFacts& node);
  void remove_node(const std::string& name);

  // One NodeLoad per node that is watched or has pods, sorted by name; a pod's rate in each
  // direction is known when the cascade (receive_price(), transmit_price()) prices it.
  // Also forgets pods whose traffic is wholly in (or, for pods gone, out of) the window by now.
  std::vector<NodeLoad> loads(const LoadWindow& window);

  // Workload learning, once per measurement (not per publish), in three steps so that a caller
  // with concurrent writers can fit without its lock: the round (the nodes' measured rates and
  // every pod whose traffic the window holds: running pods, partly when new, and gone ones;
  // O(pods)), its fit on the caller's learner, and the learned rates taken from that learner
  // (O(workloads)) for every workload whose id was not released in between. A workload's learned
  // rate is forgotten with its last pod.
  LearningRound learning_round(std::span<const NodeRate> measured, const LoadWindow& window);
  void take_learned(const WorkloadLearner& learner, const LearningRound& round);
  // The three steps at once, for a caller without concurrent writers.
  void learn(WorkloadLearner& learner, std::span<const NodeRate> measured,
             const LoadWindow& window);
  // Replaces what was measured of the running pods by their traffic per pod, matched by name (a
  // pod on its node's network never is), read over the window as of `read.now_ms`: a pod placed
  // within it is measured at its rate over the part it held (kMeasuredAfterHeld at least). A pod
  // that leaves keeps its last. O(pods): call it once per read of the traffic per pod.
  void measure_pods(std::span<const MeasuredPod> measured, const LoadWindow& read);
  // Measures these running pods at rates of their own recent samples (their slope, deriv()), not
  // over the window: as they are, whatever the window holds of them; the other pods keep theirs.
  // O(pods) for the workloads' means: call it once per read.
  void measure_recent_pods(std::span<const MeasuredPod> measured);
  // What a pod of an unknown workload is expected to receive and transmit (the learned traffic
  // per running pod); nullopt in a direction before anything was learned in it.
  LearnedRates learned_per_pod() const;
  // What a pod of an unknown workload is priced at where each pod's own traffic is read and
  // nothing is learned: the measured pods' (running, and gone with their last measurement) mean
  // plus kUnknownPodDeviations standard deviations, per direction; nullopt in a direction without
  // a measured pod.
  LearnedRates measured_per_pod() const;
  // The learned traffic per pod of a workload key ("ns/Kind/name"), nullopt when not known (yet).
  std::optional<double> workload_rate(const std::string& workload) const;
  std::optional<double> workload_transmit_rate(const std::string& workload) const;
  // For each "namespace/name", the node of the bound pod so named, or empty: no such pod, or one
  // on its node's network (spec.hostNetwork), whose traffic per pod is the node's own.
  std::vector<std::string> nodes_of_pods(std::span<const std::string> names) const;
  // The pods off the host network placed at `since_ms` or later that may still be pending
  // (within the horizon as of the last loads()), in no order. O(such pods).
  std::vector<PlacedPod> pods_placed_since(std::int64_t since_ms) const;
  // Calls `visit` for each pod that may still be pending (placed within the horizon and not yet
  // found settled by loads()), in no particular order. O(those pods); allocates nothing.
  void recent_pods(const std::function<void(const RecentPod&)>& visit) const;
  // Every bound pod off its node's network (whose traffic per pod is the node's own), at its
  // prices now. O(pods): once per refresh at most.
  std::vector<BoundPod> bound_pods() const;
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
    float receive_ceiling = -1;
    float transmit_ceiling = -1;
    float measured_rate = -1;  // by measure_pods(); < 0: not measured
    float measured_transmit_rate = -1;
    bool nominated = false;
    std::int64_t placed_ms = 0;
    std::string name{};      // "namespace/name"; empty on the host network
    std::uint32_t slot = 0;  // its entry in held_
  };
  struct Departed {
    PodRecord pod{};
    std::int64_t left_ms = 0;
  };
  struct Workload {
    std::string key{};
    std::uint32_t pods = 0;      // running
    std::uint32_t departed = 0;  // in departed_
    // Over its pods measured at the last read, running or gone within the horizon (with their last
    // measurement): sums and counts per direction.
    double measured_sum = 0, measured_transmit_sum = 0;
    std::uint32_t measured = 0, measured_transmit = 0;
    // Its traffic per pod as workload learning last learned it; nullopt: not known (yet).
    std::optional<double> learned{}, learned_transmit{};
  };
  std::uint32_t intern(const std::string& node);
  std::uint32_t intern_workload(const std::string& key);
  // Frees a workload's record (and what was learned of it) once no pod, running or gone, refers
  // to it.
  void release_workload(std::uint32_t id);
  void forget_name(const std::string& name, const std::string& uid);
  void insert(const PodFacts& pod, std::int64_t placed_ms, std::int64_t now_ms);
  // The running pod so named, or null.
  PodRecord* running_pod(const std::string& name);
  // Each workload's sums and counts of its pods' measured rates, from scratch.
  void sum_workload_measurements();
  void erase(std::unordered_map<std::string, PodRecord>::iterator it, std::int64_t now_ms);
  // Receive: its own measurement, else the annotation, else its workload's measured mean, else
  // its workload's learned rate, else a share of its ceiling; capped by the ceiling.
  PodPrice receive_price(const PodRecord& pod) const;
  // Transmit the same way, from the transmit measurements, annotation and learned rate.
  PodPrice transmit_price(const PodRecord& pod) const;
  // Counts a pod's pending or held `part` into `load` at its prices.
  void add_part(NodeLoad& load, const PodRecord& pod, double part, bool departed) const;

  std::int64_t recent_horizon_ms_;
  std::unordered_map<std::string, PodRecord> pods_;           // by uid
  std::unordered_map<std::string, std::string> uid_by_name_;  // pods not on the host network
  // Pods maybe pending, by uid: when each was placed, and its record in pods_ (a node-based map
  // keeps it in place; erase() drops the entry before the record), so that every publish reads the
  // recent pods without looking each up again.
  struct Recent {
    std::int64_t placed_ms = 0;
    const PodRecord* pod = nullptr;
  };
  std::unordered_map<std::string, Recent> recent_;
  std::vector<Departed> departed_;  // pods gone within the horizon, oldest first
  // What learning_round() reads of each running pod (held whole), by its record's slot, and the
  // record of each slot (to move the last into a freed one): a round copies this under a
  // collector's lock instead of walking pods_, whose records are scattered over the heap (at
  // 75,000 pods, a walk took about as long as the fit it fed).
  std::vector<HeldPod> held_;
  std::vector<PodRecord*> held_record_;
  std::vector<std::string> node_names_;
  std::vector<std::uint32_t> node_pods_;  // bound pods per node id
  std::unordered_map<std::string, std::uint32_t> node_ids_;
  // Watched nodes -> rule mask, sorted by name: contiguous, as every publish walks it whole.
  std::vector<std::pair<std::string, std::uint64_t>> nodes_;
  // Node ids in name order, extended when a node is interned (rarely: a node's first pod), so
  // that loads(), which runs on every publish, merges instead of sorting.
  std::vector<std::uint32_t> ids_by_name_;
  std::vector<Workload> workloads_;  // [kNoWorkload]: pods without a controlling owner
  std::unordered_map<std::string, std::uint32_t> workload_ids_;
  std::vector<std::uint32_t> free_workloads_;
  // Workload ids released since the last learning_round(), in order, each once, and the same as a
  // set by id: the learner must forget them, and must not price the workloads that took them since.
  std::vector<std::uint32_t> released_workloads_;
  std::vector<bool> released_since_round_;
  LearnedRates learned_per_pod_;
};

}  // namespace netscore::model
