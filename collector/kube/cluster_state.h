#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/label_rules.h"
#include "common/model/inputs.h"
#include "common/model/placement_ledger.h"
#include "common/model/workload_learning.h"

// What the collector keeps of the Kubernetes API: the model's placement ledger, fed from the
// watched objects' fields. Thread-safe: the watcher threads write, the publisher reads views.
namespace netscore::collector {

using model::NodeFacts;
using model::PodFacts;

// Parsers of one object as JSON (a list item or a watch event's object). nullopt: not an object of
// that kind (no uid / no name), which the watcher counts as malformed.
std::optional<PodFacts> parse_pod(std::string_view json);
std::optional<NodeFacts> parse_node(std::string_view json, const LabelRules& rules);
// "2023-03-01T10:00:00Z" (fraction and offsets allowed) -> Unix ms; nullopt when malformed.
std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text);

// model::PlacementLedger under a lock: the watcher threads write, the publisher reads loads; and
// the WorkloadLearner its rounds are fitted on.
class ClusterState {
 public:
  // Pods placed longer ago than this are never pending: set it to lag + window or more.
  explicit ClusterState(std::int64_t recent_horizon_ms = 3600000) : ledger_(recent_horizon_ms) {}

  void replace_pods(const std::vector<PodFacts>& pods, std::int64_t now_ms);
  void upsert_pod(const PodFacts& pod, std::int64_t now_ms);
  void remove_pod(const std::string& uid, std::int64_t now_ms);
  void replace_nodes(const std::vector<NodeFacts>& nodes);
  void upsert_node(const NodeFacts& node);
  void remove_node(const std::string& name);
  std::vector<model::NodeLoad> loads(const model::LoadWindow& window);
  // Workload learning's fit runs outside the lock the watchers write under: a binding that comes
  // during it reaches the table without waiting for the fit (tens of ms at thousands of nodes).
  void learn(std::span<const model::NodeRate> measured, const model::LoadWindow& window);
  void measure_pods(std::span<const model::MeasuredPod> measured, const model::LoadWindow& read);
  void measure_recent_pods(std::span<const model::MeasuredPod> measured);
  model::LearnedRates learned_per_pod() const;
  model::LearnedRates measured_per_pod() const;
  std::optional<double> workload_rate(const std::string& workload) const;
  std::optional<double> workload_transmit_rate(const std::string& workload) const;
  std::vector<std::string> nodes_of_pods(std::span<const std::string> names) const;
  std::vector<model::PlacedPod> pods_placed_since(std::int64_t since_ms) const;
  std::vector<model::BoundPod> bound_pods() const;
  std::size_t pod_count() const;
  std::size_t node_count() const;
  std::size_t recent_count() const;
  // PlacementLedger::recent_pods under the lock: `visit` must not call back into this state.
  void recent_pods(const std::function<void(const model::RecentPod&)>& visit) const;

 private:
  mutable std::mutex mutex_;
  model::PlacementLedger ledger_;
  std::mutex learning_mutex_;  // one fit at a time, of the learner below
  model::WorkloadLearner learner_;
};

}  // namespace netscore::collector
