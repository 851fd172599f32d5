#include "collector/cluster_state.h"

#include <algorithm>
#include <map>

namespace netscore::collector {

double pending_fraction(std::int64_t age_ms, const LoadWindow& window) {
  if (window.window_ms <= 0) return 0;
  const double done =
      static_cast<double>(age_ms - window.lag_ms) / static_cast<double>(window.window_ms);
  return 1.0 - std::clamp(done, 0.0, 1.0);
}

std::uint32_t ClusterState::intern(const std::string& node) {
  const auto [it, inserted] =
      node_ids_.try_emplace(node, static_cast<std::uint32_t>(node_names_.size()));
  if (inserted) {
    node_names_.push_back(node);
    node_pods_.push_back(0);
  }
  return it->second;
}

void ClusterState::insert_locked(const PodFacts& pod, std::int64_t placed_ms, std::int64_t now_ms) {
  const std::uint32_t node = intern(pod.node);
  auto [it, inserted] = pods_.try_emplace(pod.uid);
  if (!inserted) --node_pods_[it->second.node];
  it->second = PodRecord{.node = node,
                         .annotated_rate = static_cast<float>(pod.annotated_rate),
                         .placed_ms = placed_ms};
  ++node_pods_[node];
  if (now_ms - placed_ms < recent_horizon_ms_) {
    recent_[pod.uid] = placed_ms;
  } else {
    recent_.erase(pod.uid);
  }
}

void ClusterState::erase_locked(std::unordered_map<std::string, PodRecord>::iterator it) {
  --node_pods_[it->second.node];
  recent_.erase(it->first);
  pods_.erase(it);
}

void ClusterState::replace_pods(const std::vector<PodFacts>& pods, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  std::unordered_map<std::string, PodRecord> previous;
  previous.swap(pods_);
  recent_.clear();
  std::fill(node_pods_.begin(), node_pods_.end(), 0);
  pods_.reserve(pods.size());
  for (const auto& pod : pods) {
    if (pod.node.empty() || pod.terminal) continue;
    const auto known = previous.find(pod.uid);
    std::int64_t placed = pod.scheduled_ms > 0 ? std::min(pod.scheduled_ms, now_ms) : 0;
    if (known != previous.end()) placed = known->second.placed_ms;
    insert_locked(pod, placed, now_ms);
  }
}

void ClusterState::upsert_pod(const PodFacts& pod, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(pod.uid);
  if (pod.node.empty() || pod.terminal) {
    if (it != pods_.end()) erase_locked(it);
    return;
  }
  insert_locked(pod, it != pods_.end() ? it->second.placed_ms : now_ms, now_ms);
}

void ClusterState::remove_pod(const std::string& uid) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(uid);
  if (it != pods_.end()) erase_locked(it);
}

void ClusterState::replace_nodes(const std::vector<NodeFacts>& nodes) {
  std::lock_guard lock(mutex_);
  nodes_.clear();
  for (const auto& n : nodes) nodes_[n.name] = n.rule_mask;
}

void ClusterState::upsert_node(const NodeFacts& node) {
  std::lock_guard lock(mutex_);
  nodes_[node.name] = node.rule_mask;
}

void ClusterState::remove_node(const std::string& name) {
  std::lock_guard lock(mutex_);
  nodes_.erase(name);
}

std::vector<NodeLoad> ClusterState::loads(const LoadWindow& window) {
  std::lock_guard lock(mutex_);
  std::vector<NodeLoad> by_id(node_names_.size());
  for (std::size_t id = 0; id < by_id.size(); ++id) {
    by_id[id].pods = node_pods_[id];
    by_id[id].settled = node_pods_[id];
  }
  for (auto it = recent_.begin(); it != recent_.end();) {
    const double pending = pending_fraction(window.now_ms - it->second, window);
    const auto pod = pods_.find(it->first);
    if (pending <= 0 || pod == pods_.end()) {
      it = recent_.erase(it);
      continue;
    }
    NodeLoad& load = by_id[pod->second.node];
    ++load.placed;
    load.settled -= pending;
    if (pod->second.annotated_rate >= 0) {
      load.pending_annotated += pending * static_cast<double>(pod->second.annotated_rate);
      load.pending_annotated_share += pending;
    } else {
      load.pending_plain += pending;
    }
    ++it;
  }
  std::map<std::string, NodeLoad> sorted;
  for (std::size_t id = 0; id < by_id.size(); ++id) {
    if (by_id[id].pods == 0) continue;
    by_id[id].name = node_names_[id];
    sorted[node_names_[id]] = std::move(by_id[id]);
  }
  for (const auto& [name, mask] : nodes_) {
    NodeLoad& load = sorted[name];
    load.name = name;
    load.in_cluster = true;
    load.rule_mask = mask;
  }
  std::vector<NodeLoad> out;
  out.reserve(sorted.size());
  for (auto& [name, load] : sorted) out.push_back(std::move(load));
  return out;
}

std::size_t ClusterState::recent_count() const {
  std::lock_guard lock(mutex_);
  return recent_.size();
}

std::size_t ClusterState::pod_count() const {
  std::lock_guard lock(mutex_);
  return pods_.size();
}

std::size_t ClusterState::node_count() const {
  std::lock_guard lock(mutex_);
  return nodes_.size();
}

}  // namespace netscore::collector
