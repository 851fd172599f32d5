#include "common/model/workload_learning.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "common/model/pricing.h"

namespace netscore::model {
namespace {

// A pod of a workload on a measured node, its rate to be fitted.
struct Term {
  std::uint32_t node, workload;
  double held;
};

}  // namespace

void WorkloadLearner::learn(const LearningInput& input) {
  const std::span<const double> rate_of = input.node_rate;
  const std::size_t nodes = rate_of.size();
  const std::size_t workloads = input.running_pods.size();
  if (background_.size() < nodes) background_.resize(nodes, -1);
  if (workloads_.size() < workloads) workloads_.resize(workloads);

  std::vector<Term> terms;
  std::vector<double> fixed(nodes, 0);
  for (const HeldPod& pod : input.pods) {
    if (pod.held <= 0 || rate_of[pod.node] < 0) continue;
    if (pod.annotated_rate >= 0) {
      fixed[pod.node] += pod.held * pod.annotated_rate;
    } else {
      terms.push_back({pod.node, pod.workload, pod.held});
    }
  }

  // Start values: a node's rate beyond its annotated pods is split between its background and its
  // pods; a workload seen for the first time starts at the cluster's traffic per pod.
  std::vector<double> weight(workloads, 0);
  std::vector<double> pods_weight(nodes, 0);
  for (const auto& t : terms) {
    weight[t.workload] += t.held;
    pods_weight[t.node] += t.held;
  }
  double start_rate = rate_per_pod_.value_or(0);
  if (!rate_per_pod_) {
    double pod_traffic = 0, held = 0;
    for (std::size_t n = 0; n < nodes; ++n) {
      if (rate_of[n] < 0 || pods_weight[n] <= 0) continue;
      pod_traffic += std::max(0.0, rate_of[n] - fixed[n]) * kLearningStartPodShare;
      held += pods_weight[n];
    }
    if (held > 0) start_rate = pod_traffic / held;
  }
  for (std::size_t w = 0; w < workloads; ++w) {
    if (!workloads_[w].known && weight[w] > 0) workloads_[w].rate = start_rate;
  }
  for (std::size_t n = 0; n < nodes; ++n) {
    if (rate_of[n] >= 0 && background_[n] < 0) {
      const double unexplained = std::max(0.0, rate_of[n] - fixed[n]);
      background_[n] =
          pods_weight[n] > 0 ? unexplained * (1 - kLearningStartPodShare) : unexplained;
    }
  }
  // Multiplicative updates keep every rate non-negative and move each in proportion to how much
  // the nodes it appears on are under- or over-predicted. A background, constant in truth, moves
  // slower than the workloads (square root of the ratio), so a change on a node is first
  // attributed to the pods that came or went there.
  std::vector<double> predicted(nodes);
  std::vector<double> ratio(nodes);
  std::vector<double> gain(workloads);
  for (int step = 0; step < kLearningSteps; ++step) {
    for (std::size_t n = 0; n < nodes; ++n) predicted[n] = std::max(0.0, background_[n]) + fixed[n];
    for (const auto& t : terms) predicted[t.node] += t.held * workloads_[t.workload].rate;
    for (std::size_t n = 0; n < nodes; ++n) {
      const double variable = predicted[n] - fixed[n];
      ratio[n] =
          rate_of[n] < 0 || variable <= 0 ? 1.0 : std::max(0.0, rate_of[n] - fixed[n]) / variable;
    }
    std::fill(gain.begin(), gain.end(), 0.0);
    for (const auto& t : terms) gain[t.workload] += t.held * ratio[t.node];
    for (std::size_t w = 0; w < workloads; ++w) {
      if (weight[w] > 0) workloads_[w].rate *= gain[w] / weight[w];
    }
    for (std::size_t n = 0; n < nodes; ++n) {
      if (rate_of[n] >= 0 && background_[n] > 0) background_[n] *= std::sqrt(ratio[n]);
    }
  }
  double pod_traffic = 0, running = 0;
  for (std::size_t w = 0; w < workloads; ++w) {
    if (weight[w] >= kLearnedAfterPodsHeld) workloads_[w].known = true;
    const std::uint32_t pods = input.running_pods[w];
    if (workloads_[w].known && pods > 0) {
      pod_traffic += workloads_[w].rate * pods;
      running += pods;
    }
  }
  if (running > 0) rate_per_pod_ = pod_traffic / running;
}

std::optional<double> WorkloadLearner::workload_rate(std::uint32_t workload) const {
  if (workload >= workloads_.size() || !workloads_[workload].known) return std::nullopt;
  return workloads_[workload].rate;
}

void WorkloadLearner::forget_workload(std::uint32_t workload) {
  if (workload < workloads_.size()) workloads_[workload] = Workload{};
}

}  // namespace netscore::model
