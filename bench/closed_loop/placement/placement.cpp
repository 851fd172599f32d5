#include "bench/closed_loop/placement/placement.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/closed_loop/placement/oracles.h"
#include "bench/closed_loop/placement/scaled_environment.h"
#include "bench/closed_loop/workload/pod_owner.h"
#include "common/config.h"

namespace netscore::sim {
namespace {

template <class T>
std::size_t first_least(const std::vector<T>& values) {
  return static_cast<std::size_t>(std::min_element(values.begin(), values.end()) - values.begin());
}

// Per pod, when netscore could know its workload's traffic: the collector's recent read (at the
// loop's time scale) after the workload's first pod was created, its pods keyed as the collector
// keys them.
std::vector<double> workload_known_at(const Trace& trace, const LoopParams& params) {
  const Config collector =
      load_config(Component::collector, {}, scaled_environment({}, params.time_scale));
  const double measurable_s =
      std::chrono::duration<double>(pod_traffic_recent_range(collector).value).count();
  std::unordered_map<std::string, double> first_created;
  std::vector<std::string> keys;
  keys.reserve(trace.pods.size());
  for (const auto& pod : trace.pods) {
    keys.push_back(workload_key(pod, trace));
    const auto [it, added] = first_created.try_emplace(keys.back(), pod.created_s);
    if (!added) it->second = std::min(it->second, pod.created_s);
  }
  std::vector<double> known_at(trace.pods.size());
  for (std::size_t p = 0; p < keys.size(); ++p) known_at[p] = first_created[keys[p]] + measurable_s;
  return known_at;
}

}  // namespace

Placement::Placement(const Trace& trace, const Policy& policy, const LoopParams& params)
    : trace_(trace),
      policy_(policy),
      nodes_(trace.node_names.size()),
      extender_weight_(policy.weight > 0 ? policy.weight : params.shipped_weight),
      with_speeds_(
          std::any_of(trace.speed.begin(), trace.speed.end(), [](double s) { return s > 0; })),
      bound_rate_(trace.background),
      bound_transmit_(trace.background_transmit),
      node_pods_(nodes_, 0),
      node_of_pod_(trace.pods.size(), -1),
      scheduler_(params.topology_spread, params.tie_seed),
      bound_(trace.pods.size(), 0) {
  if (policy.kind != PolicyKind::informed_oracle) return;
  known_at_s_ = workload_known_at(trace, params);
  for (const auto& pod : trace.pods) mean_pod_receive_ += pod.rate;
  if (!trace.pods.empty()) mean_pod_receive_ /= static_cast<double>(trace.pods.size());
}

std::size_t Placement::least_utilised(double pod_receive, double pod_transmit) const {
  return sim::least_utilised(bound_rate_, bound_transmit_, trace_.speed, pod_receive, pod_transmit);
}

std::size_t Placement::least_known_traffic(double now_s) const {
  std::vector<double> known(trace_.background);
  for (std::size_t p = 0; p < bound_.size(); ++p) {
    if (!bound_[p]) continue;
    const PodSpec& spec = trace_.pods[p];
    const double unknown = spec.declared_rate >= 0 ? spec.declared_rate : mean_pod_receive_;
    const double rate = known_at_s_[p] <= now_s ? spec.rate : unknown;
    known[static_cast<std::size_t>(node_of_pod_[p])] += rate;
  }
  return first_least(known);
}

std::size_t Placement::initial_node(std::uint32_t pod) const {
  const PodSpec& spec = trace_.pods[pod];
  return with_speeds_ ? least_utilised(spec.rate, spec.transmit_rate) : first_least(bound_rate_);
}

std::size_t Placement::pick(std::uint32_t pod, const ExtenderScores& extender) {
  const PodSpec& spec = trace_.pods[pod];
  std::vector<std::int64_t> total(nodes_, 0);
  switch (policy_.kind) {
    case PolicyKind::fewest_pods:
      return first_least(node_pods_);
    case PolicyKind::oracle:
      return first_least(bound_rate_);
    case PolicyKind::informed_oracle:
      return least_known_traffic(spec.created_s);
    case PolicyKind::utilisation_oracle:
      return least_utilised(spec.rate, spec.transmit_rate);
    case PolicyKind::netscore:
      if (const auto scores = extender(pod))
        SchedulerModel::add_extender(*scores, extender_weight_, total);
      break;
    case PolicyKind::scheduler:
      break;
  }
  scheduler_.add_default_plugins(node_pods_, same_set(pod), total);
  return scheduler_.select_host(total);
}

void Placement::bind(std::uint32_t pod, std::size_t node) {
  const PodSpec& spec = trace_.pods[pod];
  node_of_pod_[pod] = static_cast<int>(node);
  ++node_pods_[node];
  bound_rate_[node] += spec.rate;
  bound_transmit_[node] += spec.transmit_rate;
  bound_[pod] = 1;
  if (spread_by_default(spec)) ++same_set(pod)[node];
}

void Placement::remove(std::uint32_t pod) {
  const int node = node_of_pod_[pod];
  if (node < 0) return;
  const PodSpec& spec = trace_.pods[pod];
  const auto n = static_cast<std::size_t>(node);
  --node_pods_[n];
  bound_rate_[n] -= spec.rate;
  bound_transmit_[n] -= spec.transmit_rate;
  bound_[pod] = 0;
  if (spread_by_default(spec)) --same_set(pod)[n];
}

void Placement::unbind(std::uint32_t pod) {
  remove(pod);
  node_of_pod_[pod] = -1;
}

std::vector<unsigned>& Placement::same_set(std::uint32_t pod) {
  const PodSpec& spec = trace_.pods[pod];
  auto& same = same_set_[spread_by_default(spec) ? spec.replicaset : std::string()];
  same.resize(nodes_);
  return same;
}

}  // namespace netscore::sim
