#include "collector/kube/cluster_state.h"

#include <mutex>

namespace netscore::collector {

void ClusterState::replace_pods(const std::vector<PodFacts>& pods, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  ledger_.replace_pods(pods, now_ms);
}

void ClusterState::upsert_pod(const PodFacts& pod, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  ledger_.upsert_pod(pod, now_ms);
}

void ClusterState::remove_pod(const std::string& uid, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  ledger_.remove_pod(uid, now_ms);
}

void ClusterState::replace_nodes(const std::vector<NodeFacts>& nodes) {
  std::lock_guard lock(mutex_);
  ledger_.replace_nodes(nodes);
}

void ClusterState::upsert_node(const NodeFacts& node) {
  std::lock_guard lock(mutex_);
  ledger_.upsert_node(node);
}

void ClusterState::remove_node(const std::string& name) {
  std::lock_guard lock(mutex_);
  ledger_.remove_node(name);
}

std::vector<model::NodeLoad> ClusterState::loads(const model::LoadWindow& window) {
  std::lock_guard lock(mutex_);
  return ledger_.loads(window);
}

void ClusterState::learn(std::span<const model::NodeRate> measured,
                         const model::LoadWindow& window) {
  std::lock_guard fitting(learning_mutex_);
  model::LearningRound round;
  {
    std::lock_guard lock(mutex_);
    round = ledger_.learning_round(measured, window);
  }
  round.fit(learner_);
  std::lock_guard lock(mutex_);
  ledger_.take_learned(learner_, round);
}

void ClusterState::measure_pods(std::span<const model::MeasuredPod> measured,
                                const model::LoadWindow& read) {
  std::lock_guard lock(mutex_);
  ledger_.measure_pods(measured, read);
}

void ClusterState::measure_recent_pods(std::span<const model::MeasuredPod> measured) {
  std::lock_guard lock(mutex_);
  ledger_.measure_recent_pods(measured);
}

model::LearnedRates ClusterState::measured_per_pod() const {
  std::lock_guard lock(mutex_);
  return ledger_.measured_per_pod();
}

model::LearnedRates ClusterState::learned_per_pod() const {
  std::lock_guard lock(mutex_);
  return ledger_.learned_per_pod();
}

std::optional<double> ClusterState::workload_rate(const std::string& workload) const {
  std::lock_guard lock(mutex_);
  return ledger_.workload_rate(workload);
}

std::optional<double> ClusterState::workload_transmit_rate(const std::string& workload) const {
  std::lock_guard lock(mutex_);
  return ledger_.workload_transmit_rate(workload);
}

std::vector<std::string> ClusterState::nodes_of_pods(std::span<const std::string> names) const {
  std::lock_guard lock(mutex_);
  return ledger_.nodes_of_pods(names);
}

std::vector<model::BoundPod> ClusterState::bound_pods() const {
  std::lock_guard lock(mutex_);
  return ledger_.bound_pods();
}

std::size_t ClusterState::pod_count() const {
  std::lock_guard lock(mutex_);
  return ledger_.pod_count();
}

std::size_t ClusterState::node_count() const {
  std::lock_guard lock(mutex_);
  return ledger_.node_count();
}

std::vector<model::PlacedPod> ClusterState::pods_placed_since(std::int64_t since_ms) const {
  std::lock_guard lock(mutex_);
  return ledger_.pods_placed_since(since_ms);
}

std::size_t ClusterState::recent_count() const {
  std::lock_guard lock(mutex_);
  return ledger_.recent_count();
}

void ClusterState::recent_pods(const std::function<void(const model::RecentPod&)>& visit) const {
  std::lock_guard lock(mutex_);
  ledger_.recent_pods(visit);
}

}  // namespace netscore::collector
