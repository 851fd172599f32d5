#include "common/model/rebalance.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <set>
#include <unordered_map>

namespace netscore::model {
namespace {

// The descheduler reads a metric as a quantity of value × 100 and keeps its integer part.
double points_of(double utilisation) {
  return std::max(0.0, std::floor(utilisation * 100));
}

std::string_view kind_of(std::string_view workload) {
  const std::size_t first = workload.find('/');
  const std::size_t second = workload.find('/', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) return {};
  return workload.substr(first + 1, second - first - 1);
}

// The pod to move off `hot` onto `coolest`, or nullopt: the cheapest whose move brings `hot` down
// to `target` (a utilisation; by at least one point) without taking `coolest` over it; else the one
// whose move leaves the busier of the two least busy, if that is below `hot` now. A pod too large
// for the room under the target on `coolest` still cools a node that has no smaller one to give;
// the node it lands on ends cooler than the one it left was, so no move makes a hotter node than
// the one it cools. But no move leaves both above `hot_line` (a utilisation, where a node counts
// as hot): a pod hot wherever it runs, moved off a node that stays hot without it, makes two hot
// nodes of one (in the benchmark, evictions whose node never cooled).
std::optional<std::size_t> pick(const std::vector<const RebalancePod*>& candidates,
                                const RebalanceNode& hot, const RebalanceNode& coolest,
                                double target, double hot_line) {
  const double need = std::max(hot.utilisation - target, 0.01) * hot.speed;
  const double room = (target - coolest.utilisation) * coolest.speed;
  std::optional<std::size_t> enough, coolest_pair;
  double pair_peak = hot.utilisation;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const RebalancePod& pod = *candidates[i];
    if (pod.price >= need && pod.price <= room) {
      const RebalancePod* best = enough ? candidates[*enough] : nullptr;
      if (!best || pod.price < best->price || (pod.price == best->price && pod.name < best->name))
        enough = i;
      continue;
    }
    const double left = hot.utilisation - pod.price / hot.speed;
    const double landed = coolest.utilisation + pod.price / coolest.speed;
    if (left > hot_line && landed > hot_line) continue;
    const double peak = std::max(left, landed);
    if (peak < pair_peak ||
        (coolest_pair && peak == pair_peak && pod.name < candidates[*coolest_pair]->name)) {
      pair_peak = peak;
      coolest_pair = i;
    }
  }
  return enough ? enough : coolest_pair;
}

double mean_of(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

std::vector<double> utilisations(const std::vector<RebalanceNode>& nodes) {
  std::vector<double> u;
  u.reserve(nodes.size());
  for (const auto& node : nodes) u.push_back(node.utilisation);
  return u;
}

double target_points(const std::vector<double>& figure, const RebalanceSettings& settings) {
  if (figure.empty()) return 0;
  double sum = 0;
  for (const double f : figure) sum += points_of(f);
  return std::min(100.0, sum / static_cast<double>(figure.size()) + settings.target_points);
}

// Where a moved pod goes: the coolest node by `u`, which the scheduler running netscore prefers.
std::optional<std::size_t> coolest_of(const std::vector<RebalanceNode>& nodes,
                                      const std::vector<double>& u) {
  std::optional<std::size_t> coolest;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].speed > 0 && (!coolest || u[n] < u[*coolest])) coolest = n;
  }
  return coolest;
}

// The points over which `node` is hot: the threshold, and margin_points more unless it is cooling.
double hot_points(const RebalanceNode& node, double target, const RebalanceSettings& settings) {
  return node.cooling ? target : target + settings.margin_points;
}

// The nodes hot by hot_points, hottest first.
std::vector<std::size_t> hot_nodes(const std::vector<RebalanceNode>& nodes,
                                   const std::vector<double>& figure, double target,
                                   const RebalanceSettings& settings) {
  std::vector<std::size_t> hot;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].speed > 0 && points_of(figure[n]) > hot_points(nodes[n], target, settings))
      hot.push_back(n);
  }
  std::sort(hot.begin(), hot.end(), [&](std::size_t a, std::size_t b) {
    return nodes[a].utilisation != nodes[b].utilisation
               ? nodes[a].utilisation > nodes[b].utilisation
               : nodes[a].name < nodes[b].name;
  });
  return hot;
}

}  // namespace

Direction figure_direction(RebalanceFigure figure, Direction configured,
                           const NodeUtilisation& receive, const NodeUtilisation& transmit) {
  if (!figure_chooses_direction(figure, configured)) return configured;
  const auto mean = [](const NodeUtilisation& loads) {
    double sum = 0;
    for (const auto& [node, load] : loads) sum += load;
    return sum / static_cast<double>(loads.size());
  };
  if (transmit.empty()) return Direction::receive;
  if (receive.empty()) return Direction::transmit;
  return mean(transmit) > mean(receive) ? Direction::transmit : Direction::receive;
}

bool figure_chooses_direction(RebalanceFigure figure, Direction configured) {
  return figure == RebalanceFigure::relative && configured == Direction::max;
}

std::vector<double> rebalance_figure(const std::vector<double>& utilisation,
                                     RebalanceFigure figure) {
  if (figure == RebalanceFigure::absolute) {
    std::vector<double> clamped;
    clamped.reserve(utilisation.size());
    for (const double u : utilisation) clamped.push_back(std::clamp(u, 0.0, 1.0));
    return clamped;
  }
  const double twice_mean = 2 * mean_of(utilisation);
  std::vector<double> relative;
  relative.reserve(utilisation.size());
  for (const double u : utilisation)
    relative.push_back(twice_mean > 0 ? std::clamp(u / twice_mean, 0.0, 1.0) : 0.5);
  return relative;
}

bool rebalance_eligible(const RebalancePod& pod, const RebalanceSettings& settings,
                        std::int64_t now_ms) {
  const std::string_view kind = kind_of(pod.workload);
  if (kind != "Deployment" && kind != "ReplicaSet" && kind != "StatefulSet") return false;
  if (pod.host_network || pod.resting || pod.workload_pods < settings.min_replicas) return false;
  if (pod.placed_ms <= 0 || now_ms - pod.placed_ms < settings.min_pod_age_ms) return false;
  const std::string_view namespace_name = std::string_view(pod.name).substr(0, pod.name.find('/'));
  return std::find(settings.excluded_namespaces.begin(), settings.excluded_namespaces.end(),
                   namespace_name) == settings.excluded_namespaces.end();
}

double rebalance_target(const std::vector<RebalanceNode>& nodes,
                        const RebalanceSettings& settings) {
  return target_points(rebalance_figure(utilisations(nodes), settings.figure), settings);
}

std::vector<Nominee> nominate_evictions(const std::vector<RebalanceNode>& nodes,
                                        const std::vector<RebalancePod>& pods,
                                        const RebalanceSettings& settings, std::int64_t now_ms) {
  std::vector<Nominee> nominees;
  if (nodes.empty()) return nominees;
  const std::vector<double> utilisation = utilisations(nodes);
  const std::vector<double> figure = rebalance_figure(utilisation, settings.figure);
  const double target = target_points(figure, settings);
  const double low = std::max(0.0, target - settings.target_points - settings.low_points);
  // The target as a utilisation, which a pod's price moves: a relative point is a fiftieth of
  // the mean utilisation.
  const auto as_utilisation = [&](double points) {
    return settings.figure == RebalanceFigure::absolute ? points / 100
                                                        : points / 50 * mean_of(utilisation);
  };
  const double target_utilisation = as_utilisation(target);
  const double hot_utilisation = as_utilisation(target + settings.margin_points);
  std::size_t under = 0;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (points_of(figure[n]) <= low) ++under;
  }
  if (under == 0 || under == nodes.size() || !coolest_of(nodes, utilisation)) return nominees;

  std::unordered_map<std::string_view, std::vector<const RebalancePod*>> by_node;
  for (const auto& pod : pods) {
    if (pod.price >= 0 && rebalance_eligible(pod, settings, now_ms))
      by_node[pod.node].push_back(&pod);
  }
  std::unordered_map<std::string_view, std::uint32_t> moving;  // nominees per workload
  const auto share_taken = [&](const RebalancePod* pod) {
    const auto taken = moving.find(pod->workload);
    if (taken == moving.end()) return false;
    const double share = std::floor(pod->workload_pods * settings.max_workload_share);
    return taken->second >= std::max(1.0, share);
  };
  const auto still_hot = [&](const std::vector<double>& u, std::size_t n) {
    return points_of(rebalance_figure(u, settings.figure)[n]) >
           hot_points(nodes[n], target, settings);
  };
  // The hottest nodes choose first; a workload gives up only its share of pods at a time, so once
  // hotter nodes have taken that share its pods are no candidates on cooler ones.
  for (const std::size_t n : hot_nodes(nodes, figure, target, settings)) {
    const auto found = by_node.find(nodes[n].name);
    if (found == by_node.end()) continue;
    std::vector<const RebalancePod*>& candidates = found->second;
    // Each node's choices see its own earlier nominees gone to the coolest node, not another's:
    // the scheduler spreads the replacements of several nodes over the coolest few.
    std::vector<double> u = utilisation;
    for (std::uint32_t taken = 0; taken < std::max(settings.per_node, 1u); ++taken) {
      if (taken > 0 && !still_hot(u, n)) break;
      std::erase_if(candidates, share_taken);
      const auto coolest = coolest_of(nodes, u);
      if (*coolest == n) break;
      const RebalanceNode from{nodes[n].name, u[n], nodes[n].speed};
      const RebalanceNode to{nodes[*coolest].name, u[*coolest], nodes[*coolest].speed};
      const auto chosen = pick(candidates, from, to, target_utilisation, hot_utilisation);
      if (!chosen) break;
      const RebalancePod& pod = *candidates[*chosen];
      nominees.push_back({pod.name, nodes[n].name});
      ++moving[pod.workload];
      u[n] -= pod.price / from.speed;
      u[*coolest] += pod.price / to.speed;
      candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(*chosen));
    }
  }
  std::sort(nominees.begin(), nominees.end(),
            [](const Nominee& a, const Nominee& b) { return a.pod < b.pod; });
  return nominees;
}

void NominationMemory::mark_resting(std::vector<RebalancePod>& pods, std::int64_t now_ms) {
  std::set<std::string_view> present;
  for (const auto& pod : pods) present.insert(pod.name);
  for (auto it = nominated_.begin(); it != nominated_.end();) {
    if (present.contains(it->first)) {
      ++it;
      continue;
    }
    if (!it->second.empty()) resting_[it->second] = now_ms;
    it = nominated_.erase(it);
  }
  std::erase_if(resting_, [&](const auto& w) { return now_ms - w.second >= rest_ms_; });
  for (auto& pod : pods) pod.resting = resting_.contains(pod.workload);
}

void NominationMemory::remember(const std::vector<Nominee>& nominees,
                                const std::vector<RebalancePod>& pods) {
  nominated_.clear();
  cooling_.clear();
  for (const auto& n : nominees) {
    cooling_.insert(n.node);
    const auto it = std::find_if(pods.begin(), pods.end(),
                                 [&](const RebalancePod& p) { return p.name == n.pod; });
    nominated_[n.pod] = it != pods.end() ? it->workload : std::string();
  }
}

void NominationMemory::mark_cooling(std::vector<RebalanceNode>& nodes) const {
  for (auto& node : nodes) node.cooling = cooling_.contains(node.name);
}

}  // namespace netscore::model
