#include "common/model/placement_ledger.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "common/model/correction.h"

namespace netscore::model {

std::uint32_t PlacementLedger::intern(const std::string& node) {
  const auto [it, inserted] =
      node_ids_.try_emplace(node, static_cast<std::uint32_t>(node_names_.size()));
  if (inserted) {
    node_names_.push_back(node);
    node_pods_.push_back(0);
  }
  return it->second;
}

std::uint32_t PlacementLedger::intern_workload(const std::string& key) {
  if (workloads_.empty()) workloads_.emplace_back();  // kNoWorkload
  if (key.empty()) return kNoWorkload;
  const auto found = workload_ids_.find(key);
  if (found != workload_ids_.end()) return found->second;
  std::uint32_t id = 0;
  if (!free_workloads_.empty()) {
    id = free_workloads_.back();
    free_workloads_.pop_back();
    workloads_[id] = Workload{.key = key};
  } else {
    id = static_cast<std::uint32_t>(workloads_.size());
    workloads_.push_back(Workload{.key = key});
  }
  workload_ids_.emplace(key, id);
  return id;
}

void PlacementLedger::release_workload(std::uint32_t id) {
  Workload& w = workloads_[id];
  if (id == kNoWorkload || w.pods > 0 || w.departed > 0) return;
  workload_ids_.erase(w.key);
  w = Workload{};
  if (released_since_round_.size() <= id) released_since_round_.resize(workloads_.size());
  if (!released_since_round_[id]) {
    released_since_round_[id] = true;
    released_workloads_.push_back(id);
  }
  free_workloads_.push_back(id);
}

void PlacementLedger::forget_name(const std::string& name, const std::string& uid) {
  // A pod recreated under the same name (a StatefulSet's) may be known before the old one leaves.
  const auto it = uid_by_name_.find(name);
  if (it != uid_by_name_.end() && it->second == uid) uid_by_name_.erase(it);
}

void PlacementLedger::insert(const PodFacts& pod, std::int64_t placed_ms, std::int64_t now_ms) {
  const std::uint32_t node = intern(pod.node);
  const std::uint32_t workload = intern_workload(pod.workload);
  auto [it, inserted] = pods_.try_emplace(pod.uid);
  ++workloads_[workload].pods;
  const float measured_rate = inserted ? -1 : it->second.measured_rate;
  const float measured_transmit_rate = inserted ? -1 : it->second.measured_transmit_rate;
  if (!inserted) {
    --node_pods_[it->second.node];
    --workloads_[it->second.workload].pods;
    release_workload(it->second.workload);
    forget_name(it->second.name, pod.uid);
  }
  const auto slot = static_cast<std::uint32_t>(inserted ? held_.size() : it->second.slot);
  std::string name = pod.host_network ? std::string() : pod.name;
  if (!name.empty()) uid_by_name_[name] = pod.uid;
  it->second = PodRecord{.node = node,
                         .workload = workload,
                         .annotated_rate = static_cast<float>(pod.annotated_rate),
                         .annotated_transmit_rate = static_cast<float>(pod.annotated_transmit_rate),
                         .receive_ceiling = static_cast<float>(pod.receive_ceiling),
                         .transmit_ceiling = static_cast<float>(pod.transmit_ceiling),
                         .measured_rate = measured_rate,
                         .measured_transmit_rate = measured_transmit_rate,
                         .nominated = pod.nominated,
                         .placed_ms = placed_ms,
                         .name = std::move(name),
                         .slot = slot};
  const HeldPod held{.node = node,
                     .workload = workload,
                     .held = 1,
                     .annotated_rate = it->second.annotated_rate,
                     .annotated_transmit_rate = it->second.annotated_transmit_rate};
  if (inserted) {
    held_.push_back(held);
    held_record_.push_back(&it->second);
  } else {
    held_[slot] = held;
  }
  ++node_pods_[node];
  if (now_ms - placed_ms < recent_horizon_ms_) {
    recent_[pod.uid] = {.placed_ms = placed_ms, .pod = &it->second};
  } else {
    recent_.erase(pod.uid);
  }
}

void PlacementLedger::erase(std::unordered_map<std::string, PodRecord>::iterator it,
                            std::int64_t now_ms) {
  const PodRecord& pod = it->second;
  --node_pods_[pod.node];
  --workloads_[pod.workload].pods;
  // Kept until loads() sees its traffic gone from the window.
  departed_.push_back({.pod = pod, .left_ms = now_ms});
  ++workloads_[pod.workload].departed;
  recent_.erase(it->first);
  forget_name(pod.name, it->first);
  held_[pod.slot] = held_.back();
  held_record_[pod.slot] = held_record_.back();
  held_record_[pod.slot]->slot = pod.slot;
  held_.pop_back();
  held_record_.pop_back();
  pods_.erase(it);
}

void PlacementLedger::replace_pods(const std::vector<PodFacts>& pods, std::int64_t now_ms) {
  std::unordered_map<std::string, const PodFacts*> running;
  running.reserve(pods.size());
  for (const auto& pod : pods) {
    if (!pod.node.empty() && !pod.terminal) running[pod.uid] = &pod;
  }
  for (auto it = pods_.begin(); it != pods_.end();) {
    if (running.contains(it->first)) {
      ++it;
    } else {
      erase(it++, now_ms);
    }
  }
  pods_.reserve(running.size());
  for (const auto& [uid, pod] : running) {
    const auto known = pods_.find(uid);
    std::int64_t placed = pod->scheduled_ms > 0 ? std::min(pod->scheduled_ms, now_ms) : 0;
    if (known != pods_.end()) placed = known->second.placed_ms;
    insert(*pod, placed, now_ms);
  }
}

void PlacementLedger::upsert_pod(const PodFacts& pod, std::int64_t now_ms) {
  const auto it = pods_.find(pod.uid);
  if (pod.node.empty() || pod.terminal) {
    if (it != pods_.end()) erase(it, now_ms);
    return;
  }
  insert(pod, it != pods_.end() ? it->second.placed_ms : now_ms, now_ms);
}

void PlacementLedger::remove_pod(const std::string& uid, std::int64_t now_ms) {
  const auto it = pods_.find(uid);
  if (it != pods_.end()) erase(it, now_ms);
}

void PlacementLedger::replace_nodes(const std::vector<NodeFacts>& nodes) {
  nodes_.clear();
  nodes_.reserve(nodes.size());
  for (const auto& n : nodes) nodes_.emplace_back(n.name, n.rule_mask);
  // Sorted once (already in order when the API server lists them), not inserted one by one.
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end(),
                           [](const auto& a, const auto& b) { return a.first == b.first; }),
               nodes_.end());
}

void PlacementLedger::upsert_node(const NodeFacts& node) {
  const auto at =
      std::lower_bound(nodes_.begin(), nodes_.end(), node.name,
                       [](const auto& n, const std::string& name) { return n.first < name; });
  if (at != nodes_.end() && at->first == node.name) {
    at->second = node.rule_mask;
  } else {
    nodes_.emplace(at, node.name, node.rule_mask);
  }
}

void PlacementLedger::remove_node(const std::string& name) {
  const auto at =
      std::lower_bound(nodes_.begin(), nodes_.end(), name,
                       [](const auto& n, const std::string& key) { return n.first < key; });
  if (at != nodes_.end() && at->first == name) nodes_.erase(at);
}

std::vector<NodeLoad> PlacementLedger::loads(const LoadWindow& window) {
  if (ids_by_name_.size() != node_names_.size()) {
    ids_by_name_.resize(node_names_.size());
    std::iota(ids_by_name_.begin(), ids_by_name_.end(), 0U);
    std::sort(ids_by_name_.begin(), ids_by_name_.end(),
              [&](std::uint32_t a, std::uint32_t b) { return node_names_[a] < node_names_[b]; });
  }
  // Every node with an id and every watched node, in name order: two sorted sequences merged,
  // each load built once, in place. at[id] is where a node id's load is; a node neither watched
  // nor holding pods, running or gone, is dropped at the end.
  std::vector<NodeLoad> out;
  out.reserve(node_names_.size() + nodes_.size());
  std::vector<std::uint32_t> at(node_names_.size());
  auto watched = nodes_.begin();
  // Watched nodes without pods up to `name` (nullptr: all the rest).
  const auto watched_only_before = [&](const std::string* name) {
    for (; watched != nodes_.end() && (name == nullptr || watched->first < *name); ++watched) {
      out.push_back({.name = watched->first, .in_cluster = true, .rule_mask = watched->second});
    }
  };
  for (const std::uint32_t id : ids_by_name_) {
    const std::string& name = node_names_[id];
    watched_only_before(&name);
    at[id] = static_cast<std::uint32_t>(out.size());
    NodeLoad& load = out.emplace_back();
    load.name = name;
    load.pods = node_pods_[id];
    load.settled = node_pods_[id];
    if (watched != nodes_.end() && watched->first == name) {
      load.in_cluster = true;
      load.rule_mask = watched->second;
      ++watched;
    }
  }
  watched_only_before(nullptr);
  for (auto it = recent_.begin(); it != recent_.end();) {
    const double pending = pending_fraction(window.now_ms - it->second.placed_ms, window);
    if (pending <= 0) {
      it = recent_.erase(it);
      continue;
    }
    const PodRecord& pod = *it->second.pod;
    NodeLoad& load = out[at[pod.node]];
    ++load.placed;
    load.settled -= pending;
    add_part(load, pod, pending, false);
    ++it;
  }
  std::erase_if(departed_, [&](const Departed& gone) {
    const double held = held_fraction(gone.pod.placed_ms, gone.left_ms, window);
    if (held <= 0) {
      --workloads_[gone.pod.workload].departed;
      release_workload(gone.pod.workload);
      return true;
    }
    // A pod moved off its node for rebalancing leaves its traffic there until the window forgets
    // it: with the departure taken out, the node it cooled looked quietest to its replacement,
    // which went straight back.
    if (gone.pod.nominated) return false;
    NodeLoad& load = out[at[gone.pod.node]];
    ++load.departed;
    add_part(load, gone.pod, held, true);
    return false;
  });
  std::erase_if(out, [](const NodeLoad& load) {
    return !load.in_cluster && load.pods == 0 && load.departed == 0;
  });
  return out;
}

LearningRound PlacementLedger::learning_round(std::span<const NodeRate> measured,
                                              const LoadWindow& window) {
  const auto usable = [](double rate) { return std::isfinite(rate) && rate >= 0; };
  LearningRound round;
  round.node_rate.assign(node_names_.size(), -1);
  round.node_transmit_rate.assign(node_names_.size(), -1);
  bool any_transmit = false;
  for (const auto& m : measured) {
    const auto id = node_ids_.find(m.node);
    if (id == node_ids_.end()) continue;
    if (usable(m.rate)) round.node_rate[id->second] = m.rate;
    if (usable(m.transmit_rate)) {
      round.node_transmit_rate[id->second] = m.transmit_rate;
      any_transmit = true;
    }
  }
  if (!any_transmit) round.node_transmit_rate.clear();
  round.pods.reserve(held_.size() + departed_.size());
  round.pods.assign(held_.begin(), held_.end());
  for (const auto& [uid, recent] : recent_) {
    round.pods[recent.pod->slot].held =
        1.0 - pending_fraction(window.now_ms - recent.placed_ms, window);
  }
  for (const auto& gone : departed_) {
    round.pods.push_back({.node = gone.pod.node,
                          .workload = gone.pod.workload,
                          .held = held_fraction(gone.pod.placed_ms, gone.left_ms, window),
                          .annotated_rate = gone.pod.annotated_rate,
                          .annotated_transmit_rate = gone.pod.annotated_transmit_rate});
  }
  round.running_pods.resize(workloads_.size());
  for (std::size_t w = 0; w < workloads_.size(); ++w) round.running_pods[w] = workloads_[w].pods;
  for (const std::uint32_t id : released_workloads_) released_since_round_[id] = false;
  round.released = std::move(released_workloads_);
  released_workloads_.clear();
  return round;
}

void LearningRound::fit(WorkloadLearner& learner) const {
  for (const std::uint32_t id : released) learner.forget_workload(id);
  learner.learn({.node_rate = node_rate,
                 .node_transmit_rate = node_transmit_rate,
                 .pods = pods,
                 .running_pods = running_pods});
}

void PlacementLedger::take_learned(const WorkloadLearner& learner, const LearningRound& round) {
  const std::size_t fitted = std::min(round.running_pods.size(), workloads_.size());
  for (std::uint32_t id = 0; id < fitted; ++id) {
    // Released while the round was fitted: the learner's rate is of the workload that had the id.
    if (id < released_since_round_.size() && released_since_round_[id]) continue;
    workloads_[id].learned = learner.workload_rate(id);
    workloads_[id].learned_transmit = learner.workload_transmit_rate(id);
  }
  learned_per_pod_ = {.receive = learner.rate_per_pod(),
                      .transmit = learner.transmit_rate_per_pod()};
}

void PlacementLedger::learn(WorkloadLearner& learner, std::span<const NodeRate> measured,
                            const LoadWindow& window) {
  const LearningRound round = learning_round(measured, window);
  round.fit(learner);
  take_learned(learner, round);
}

LearnedRates PlacementLedger::learned_per_pod() const {
  return learned_per_pod_;
}

std::optional<double> PlacementLedger::workload_rate(const std::string& workload) const {
  const auto it = workload_ids_.find(workload);
  if (it == workload_ids_.end()) return std::nullopt;
  return workloads_[it->second].learned;
}

std::optional<double> PlacementLedger::workload_transmit_rate(const std::string& workload) const {
  const auto it = workload_ids_.find(workload);
  if (it == workload_ids_.end()) return std::nullopt;
  return workloads_[it->second].learned_transmit;
}

std::vector<std::string> PlacementLedger::nodes_of_pods(std::span<const std::string> names) const {
  std::vector<std::string> nodes(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto uid = uid_by_name_.find(names[i]);
    if (uid == uid_by_name_.end()) continue;
    if (const auto pod = pods_.find(uid->second); pod != pods_.end())
      nodes[i] = node_names_[pod->second.node];
  }
  return nodes;
}

std::size_t PlacementLedger::recent_count() const {
  return recent_.size();
}

std::size_t PlacementLedger::pod_count() const {
  return pods_.size();
}

std::size_t PlacementLedger::node_count() const {
  return nodes_.size();
}

}  // namespace netscore::model
