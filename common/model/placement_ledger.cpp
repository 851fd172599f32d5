#include "common/model/placement_ledger.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "common/model/correction.h"
#include "common/model/pricing.h"

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
  learner_.forget_workload(id);
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
                         .name = std::move(name)};
  ++node_pods_[node];
  if (now_ms - placed_ms < recent_horizon_ms_) {
    recent_[pod.uid] = placed_ms;
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
  pods_.erase(it);
}

namespace {

// A measured rate per second of what the window held of it; -1 (not measured) when unusable.
float per_second(double value, double held) {
  return static_cast<float>(std::isfinite(value) && value >= 0 ? value / held : -1);
}

// The cascade's last word: a declared ceiling caps a price, and prices a pod nothing else prices.
PodPrice capped(double rate, PriceSource source, float ceiling) {
  if (ceiling < 0) return {.rate = rate, .source = source};
  if (rate < 0) return {.rate = ceiling * kCeilingPodShare, .source = PriceSource::ceiling};
  if (rate > ceiling) return {.rate = ceiling, .source = PriceSource::ceiling};
  return {.rate = rate, .source = source};
}

}  // namespace

PodPrice PlacementLedger::receive_price(const PodRecord& pod) const {
  const float ceiling = pod.receive_ceiling;
  if (pod.measured_rate >= 0) return capped(pod.measured_rate, PriceSource::measurement, ceiling);
  if (pod.annotated_rate >= 0) return capped(pod.annotated_rate, PriceSource::annotation, ceiling);
  if (pod.workload == kNoWorkload) return capped(-1, PriceSource::average, ceiling);
  if (const Workload& w = workloads_[pod.workload]; w.measured > 0)
    return capped(w.measured_sum / w.measured, PriceSource::workload_measurement, ceiling);
  if (const auto learned = learner_.workload_rate(pod.workload))
    return capped(*learned, PriceSource::workload, ceiling);
  return capped(-1, PriceSource::average, ceiling);
}

PodPrice PlacementLedger::transmit_price(const PodRecord& pod) const {
  const float ceiling = pod.transmit_ceiling;
  if (pod.measured_transmit_rate >= 0)
    return capped(pod.measured_transmit_rate, PriceSource::measurement, ceiling);
  if (pod.annotated_transmit_rate >= 0)
    return capped(pod.annotated_transmit_rate, PriceSource::annotation, ceiling);
  if (pod.workload == kNoWorkload) return capped(-1, PriceSource::average, ceiling);
  if (const Workload& w = workloads_[pod.workload]; w.measured_transmit > 0)
    return capped(w.measured_transmit_sum / w.measured_transmit, PriceSource::workload_measurement,
                  ceiling);
  if (const auto learned = learner_.workload_transmit_rate(pod.workload))
    return capped(*learned, PriceSource::workload, ceiling);
  return capped(-1, PriceSource::average, ceiling);
}

namespace {

std::uint32_t& receive_counter(NodeLoad& load, PriceSource source) {
  switch (source) {
    case PriceSource::measurement:
      return load.priced_by_measurement;
    case PriceSource::annotation:
      return load.priced_by_annotation;
    case PriceSource::workload_measurement:
      return load.priced_by_workload_measurement;
    case PriceSource::workload:
      return load.priced_by_workload;
    case PriceSource::ceiling:
    case PriceSource::average:
      break;
  }
  return load.priced_by_ceiling;
}

std::uint32_t& transmit_counter(NodeLoad& load, PriceSource source) {
  switch (source) {
    case PriceSource::measurement:
      return load.priced_by_transmit_measurement;
    case PriceSource::annotation:
      return load.priced_by_transmit_annotation;
    case PriceSource::workload_measurement:
      return load.priced_by_transmit_workload_measurement;
    case PriceSource::workload:
      return load.priced_by_transmit_workload;
    case PriceSource::ceiling:
    case PriceSource::average:
      break;
  }
  return load.priced_by_transmit_ceiling;
}

}  // namespace

void PlacementLedger::add_part(NodeLoad& load, const PodRecord& pod, double part,
                               bool departed) const {
  const PodPrice rx = receive_price(pod);
  if (rx.rate >= 0) {
    (departed ? load.departed_known : load.pending_known) += part * rx.rate;
    (departed ? load.departed_known_share : load.pending_known_share) += part;
    ++receive_counter(load, rx.source);
  } else {
    (departed ? load.departed_plain : load.pending_plain) += part;
  }
  const PodPrice tx = transmit_price(pod);
  if (tx.rate >= 0) {
    (departed ? load.departed_transmit_known : load.pending_transmit_known) += part * tx.rate;
    (departed ? load.departed_transmit_known_share : load.pending_transmit_known_share) += part;
    ++transmit_counter(load, tx.source);
  }
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
    const double pending = pending_fraction(window.now_ms - it->second, window);
    const auto pod = pods_.find(it->first);
    if (pending <= 0 || pod == pods_.end()) {
      it = recent_.erase(it);
      continue;
    }
    NodeLoad& load = out[at[pod->second.node]];
    ++load.placed;
    load.settled -= pending;
    add_part(load, pod->second, pending, false);
    ++it;
  }
  std::erase_if(departed_, [&](const Departed& gone) {
    const double held = held_fraction(gone.pod.placed_ms, gone.left_ms, window);
    if (held <= 0) {
      --workloads_[gone.pod.workload].departed;
      release_workload(gone.pod.workload);
      return true;
    }
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

void PlacementLedger::learn(std::span<const NodeRate> measured, const LoadWindow& window) {
  const auto usable = [](double rate) { return std::isfinite(rate) && rate >= 0; };
  std::vector<double> rate_of(node_names_.size(), -1);
  std::vector<double> transmit_of(node_names_.size(), -1);
  bool any_transmit = false;
  for (const auto& m : measured) {
    const auto id = node_ids_.find(m.node);
    if (id == node_ids_.end()) continue;
    if (usable(m.rate)) rate_of[id->second] = m.rate;
    if (usable(m.transmit_rate)) {
      transmit_of[id->second] = m.transmit_rate;
      any_transmit = true;
    }
  }
  std::vector<HeldPod> held;
  held.reserve(pods_.size() + departed_.size());
  const auto add = [&](const PodRecord& pod, double part) {
    held.push_back({.node = pod.node,
                    .workload = pod.workload,
                    .held = part,
                    .annotated_rate = pod.annotated_rate,
                    .annotated_transmit_rate = pod.annotated_transmit_rate});
  };
  for (const auto& [uid, pod] : pods_) {
    const auto recent = recent_.find(uid);
    add(pod, recent == recent_.end()
                 ? 1.0
                 : 1.0 - pending_fraction(window.now_ms - recent->second, window));
  }
  for (const auto& gone : departed_)
    add(gone.pod, held_fraction(gone.pod.placed_ms, gone.left_ms, window));
  std::vector<std::uint32_t> running(workloads_.size());
  for (std::size_t w = 0; w < workloads_.size(); ++w) running[w] = workloads_[w].pods;
  learner_.learn({.node_rate = rate_of,
                  .node_transmit_rate = any_transmit ? std::span<const double>(transmit_of)
                                                     : std::span<const double>(),
                  .pods = held,
                  .running_pods = running});
}

void PlacementLedger::measure_pods(std::span<const MeasuredPod> measured, const LoadWindow& read) {
  for (auto& [uid, pod] : pods_) {
    pod.measured_rate = -1;
    pod.measured_transmit_rate = -1;
  }
  for (const MeasuredPod& m : measured) {
    PodRecord* pod = running_pod(m.name);
    if (pod == nullptr) continue;
    // A rate over the window counts a young pod's traffic over the whole window: what the window
    // holds of it, too little to tell until a part of it is held.
    const std::int64_t age_ms = read.now_ms - pod->placed_ms;
    if (!window_measures_pod(age_ms, read)) continue;
    const double held = 1.0 - pending_fraction(age_ms, read);
    pod->measured_rate = per_second(m.receive, held);
    pod->measured_transmit_rate = per_second(m.transmit, held);
  }
  sum_workload_measurements();
}

void PlacementLedger::measure_recent_pods(std::span<const MeasuredPod> measured) {
  for (const MeasuredPod& m : measured) {
    PodRecord* pod = running_pod(m.name);
    if (pod == nullptr) continue;
    pod->measured_rate = per_second(m.receive, 1.0);
    pod->measured_transmit_rate = per_second(m.transmit, 1.0);
  }
  sum_workload_measurements();
}

PlacementLedger::PodRecord* PlacementLedger::running_pod(const std::string& name) {
  const auto uid = uid_by_name_.find(name);
  if (uid == uid_by_name_.end()) return nullptr;
  const auto pod = pods_.find(uid->second);
  return pod == pods_.end() ? nullptr : &pod->second;
}

void PlacementLedger::sum_workload_measurements() {
  for (Workload& w : workloads_) {
    w.measured_sum = w.measured_transmit_sum = 0;
    w.measured = w.measured_transmit = 0;
  }
  for (const auto& [uid, pod] : pods_) {
    if (pod.workload == kNoWorkload) continue;
    Workload& w = workloads_[pod.workload];
    if (pod.measured_rate >= 0) {
      w.measured_sum += pod.measured_rate;
      ++w.measured;
    }
    if (pod.measured_transmit_rate >= 0) {
      w.measured_transmit_sum += pod.measured_transmit_rate;
      ++w.measured_transmit;
    }
  }
}

bool window_measures_pod(std::int64_t age_ms, const LoadWindow& read) {
  return 1.0 - pending_fraction(age_ms, read) >= kMeasuredAfterHeld;
}

std::vector<PlacedPod> PlacementLedger::pods_placed_since(std::int64_t since_ms) const {
  std::vector<PlacedPod> out;
  for (const auto& [uid, placed_ms] : recent_) {
    if (placed_ms < since_ms) continue;
    const auto pod = pods_.find(uid);
    if (pod != pods_.end() && !pod->second.name.empty())
      out.push_back({.name = pod->second.name, .placed_ms = placed_ms});
  }
  return out;
}

LearnedRates PlacementLedger::learned_per_pod() const {
  return {.receive = learner_.rate_per_pod(), .transmit = learner_.transmit_rate_per_pod()};
}

std::optional<double> PlacementLedger::workload_rate(const std::string& workload) const {
  const auto it = workload_ids_.find(workload);
  if (it == workload_ids_.end()) return std::nullopt;
  return learner_.workload_rate(it->second);
}

std::optional<double> PlacementLedger::workload_transmit_rate(const std::string& workload) const {
  const auto it = workload_ids_.find(workload);
  if (it == workload_ids_.end()) return std::nullopt;
  return learner_.workload_transmit_rate(it->second);
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

void PlacementLedger::recent_pods(const std::function<void(const RecentPod&)>& visit) const {
  for (const auto& [uid, placed_ms] : recent_) {
    const auto pod = pods_.find(uid);
    if (pod == pods_.end()) continue;
    visit({.uid = uid,
           .name = pod->second.name,
           .node = node_names_[pod->second.node],
           .placed_ms = placed_ms,
           .receive = receive_price(pod->second),
           .transmit = transmit_price(pod->second)});
  }
}

std::size_t PlacementLedger::recent_count() const {
  return recent_.size();
}

std::vector<BoundPod> PlacementLedger::bound_pods() const {
  std::vector<BoundPod> out;
  out.reserve(pods_.size());
  for (const auto& [uid, pod] : pods_) {
    if (pod.name.empty()) continue;
    const bool owned = pod.workload != kNoWorkload;
    out.push_back({.name = pod.name,
                   .node = node_names_[pod.node],
                   .workload = owned ? workloads_[pod.workload].key : std::string(),
                   .workload_pods = owned ? workloads_[pod.workload].pods : 0,
                   .placed_ms = pod.placed_ms,
                   .receive = receive_price(pod),
                   .transmit = transmit_price(pod),
                   .nominated = pod.nominated});
  }
  return out;
}

std::size_t PlacementLedger::pod_count() const {
  return pods_.size();
}

std::size_t PlacementLedger::node_count() const {
  return nodes_.size();
}

}  // namespace netscore::model
