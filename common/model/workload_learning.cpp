#include "common/model/workload_learning.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "common/model/pricing.h"

namespace netscore::model {
namespace {

// One background and one traffic per pod for a set of nodes: traffic = background + pods x rate.
struct Line {
  double background, rate;
};

// The least-squares line through (pods held, traffic) of the nodes, both coefficients
// non-negative; nullopt when the nodes cannot tell the two apart: fewer than two, all holding as
// many pods, traffic not growing with pods, or the pods explaining less than kLearningStartFit of
// the variance of the traffic between nodes (their backgrounds and workloads differ more than
// their pod counts: the slope would be noise).
std::optional<Line> fit_line(std::span<const double> pods, std::span<const double> traffic) {
  if (pods.size() < 2) return std::nullopt;
  const auto n = static_cast<double>(pods.size());
  const double mean_pods = std::accumulate(pods.begin(), pods.end(), 0.0) / n;
  const double mean_traffic = std::accumulate(traffic.begin(), traffic.end(), 0.0) / n;
  double sxx = 0, sxy = 0, syy = 0, xx = 0, xy = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    sxx += (pods[i] - mean_pods) * (pods[i] - mean_pods);
    sxy += (pods[i] - mean_pods) * (traffic[i] - mean_traffic);
    syy += (traffic[i] - mean_traffic) * (traffic[i] - mean_traffic);
    xx += pods[i] * pods[i];
    xy += pods[i] * traffic[i];
  }
  if (sxx <= 0 || sxy <= 0 || sxy * sxy < kLearningStartFit * sxx * syy) return std::nullopt;
  Line line{.background = 0, .rate = sxy / sxx};
  line.background = mean_traffic - line.rate * mean_pods;
  if (line.background < 0) line = {.background = 0, .rate = xy / xx};
  if (line.rate <= 0) return std::nullopt;
  return line;
}

}  // namespace

void WorkloadLearner::learn(const LearningInput& input) {
  receive_.learn(input.node_rate, input.pods, &HeldPod::annotated_rate, input.running_pods);
  if (!input.node_transmit_rate.empty()) {
    transmit_.learn(input.node_transmit_rate, input.pods, &HeldPod::annotated_transmit_rate,
                    input.running_pods);
  }
}

void WorkloadLearner::forget_workload(std::uint32_t workload) {
  receive_.forget_workload(workload);
  transmit_.forget_workload(workload);
}

// A measurement's pods as the fit reads them: the terms, and the part of their traffic the window
// holds per workload and node; and what the annotated pods declare, by workload.
struct WorkloadLearner::Fit::Observation {
  std::vector<Term> terms;
  std::vector<double> weight;       // by workload
  std::vector<double> pods_weight;  // by node
  // The annotated pods' declared traffic x held part and their held parts, summed by workload:
  // where a new workload's fit starts, and the declared traffic per pod that the unknown pod's
  // price counts beside the learned workloads'; and how many there are, held or not (the pods
  // their workload's learned rate does not price).
  std::vector<double> declared_traffic, declared_weight;
  std::vector<std::uint32_t> declared_pods;
  double declared_squares = 0;  // sum of held part x declared traffic squared
};

WorkloadLearner::Fit::Observation WorkloadLearner::Fit::observe(std::span<const double> rate_of,
                                                                std::span<const HeldPod> pods,
                                                                double HeldPod::*annotated,
                                                                std::size_t workloads,
                                                                std::vector<Term> terms) {
  terms.clear();
  terms.reserve(pods.size());
  Observation seen{.terms = std::move(terms),
                   .weight = std::vector<double>(workloads, 0),
                   .pods_weight = std::vector<double>(rate_of.size(), 0),
                   .declared_traffic = std::vector<double>(workloads, 0),
                   .declared_weight = std::vector<double>(workloads, 0),
                   .declared_pods = std::vector<std::uint32_t>(workloads, 0)};
  for (const HeldPod& pod : pods) {
    const double declared = pod.*annotated;
    if (declared >= 0) ++seen.declared_pods[pod.workload];
    if (pod.held <= 0 || rate_of[pod.node] < 0) continue;
    seen.terms.push_back({pod.node, pod.workload, pod.held});
    seen.weight[pod.workload] += pod.held;
    seen.pods_weight[pod.node] += pod.held;
    if (declared < 0) continue;
    seen.declared_traffic[pod.workload] += pod.held * declared;
    seen.declared_weight[pod.workload] += pod.held;
    seen.declared_squares += pod.held * declared * declared;
  }
  return seen;
}

void WorkloadLearner::Fit::learn(std::span<const double> rate_of, std::span<const HeldPod> pods,
                                 double HeldPod::*annotated,
                                 std::span<const std::uint32_t> running_pods) {
  if (background_.size() < rate_of.size()) background_.resize(rate_of.size(), -1);
  if (workloads_.size() < running_pods.size()) workloads_.resize(running_pods.size());
  fold_forgotten();
  // The oldest measurement, once the history is full, lends its storage to the newest.
  Measured next;
  if (recent_.size() == static_cast<std::size_t>(kLearningMeasurements)) {
    next = std::move(recent_.front());
    recent_.pop_front();
  }
  Observation seen = observe(rate_of, pods, annotated, running_pods.size(), std::move(next.terms));
  start(rate_of, seen);
  next.rate.assign(rate_of.begin(), rate_of.end());
  next.fixed.assign(rate_of.size(), 0);
  next.terms = std::move(seen.terms);
  recent_.push_back(std::move(next));
  update();
  summarise(seen, running_pods);
}

// Start values for the nodes measured for the first time (usually all of them, at the first
// measurement) and the workloads seen for the first time. A node's rate is one background for all
// of them plus their pods' traffic per pod when their pod counts explain their rates (fit_line): a
// fit whose start already explains every node exactly would never move from its start. Otherwise
// kLearningStartPodShare of it goes to its pods. A new workload starts at what its annotated pods
// declare, else at the learned traffic per pod, else at the start's.
void WorkloadLearner::Fit::start(std::span<const double> rate_of, const Observation& seen) {
  const std::size_t nodes = rate_of.size();
  std::vector<double> new_pods, new_traffic;
  double split_traffic = 0, split_held = 0;
  // A multiplicative step never moves a background of 0: one that reads 0 (its node measured
  // nothing once) starts again while no pod is on its node, when all its node measures is
  // background.
  const auto starts = [&](std::size_t n) {
    return background_[n] < 0 || (background_[n] == 0 && seen.pods_weight[n] <= 0);
  };
  for (std::size_t n = 0; n < nodes; ++n) {
    if (rate_of[n] < 0) continue;
    if (starts(n)) {
      new_pods.push_back(seen.pods_weight[n]);
      new_traffic.push_back(rate_of[n]);
    }
    if (seen.pods_weight[n] > 0) {
      split_traffic += rate_of[n] * kLearningStartPodShare;
      split_held += seen.pods_weight[n];
    }
  }
  const std::optional<Line> line = fit_line(new_pods, new_traffic);
  double start_rate = split_held > 0 ? split_traffic / split_held : 0;
  if (line) start_rate = line->rate;
  start_rate = rate_per_pod_.value_or(start_rate);
  for (std::size_t w = 0; w < seen.weight.size(); ++w) {
    if (workloads_[w].known || seen.weight[w] <= 0) continue;
    workloads_[w].rate = seen.declared_weight[w] > 0
                             ? seen.declared_traffic[w] / seen.declared_weight[w]
                             : start_rate;
  }
  for (std::size_t n = 0; n < nodes; ++n) {
    if (rate_of[n] < 0 || !starts(n)) continue;
    if (seen.pods_weight[n] <= 0) {
      background_[n] = rate_of[n];
    } else if (line) {
      background_[n] = std::min(line->background, rate_of[n]);
    } else {
      background_[n] = rate_of[n] * (1 - kLearningStartPodShare);
    }
  }
}

// Multiplicative updates keep every rate non-negative and move each in proportion to how much the
// nodes it appears on are under- or over-predicted, over the recent measurements together. A
// background, constant in truth, moves slower than the workloads (square root of its node's mean
// ratio), so a change on a node is first attributed to the pods that came or went there.
void WorkloadLearner::Fit::update() {
  const std::size_t nodes = background_.size();
  auto& [predicted, ratio, background_ratio, measured, gain, weight] = sums_;
  // Sized once per fit; each step zeroes what it sums and writes the rest before reading it.
  for (auto* by_node : {&predicted, &ratio, &background_ratio, &measured}) by_node->resize(nodes);
  gain.resize(workloads_.size());
  weight.resize(workloads_.size());
  for (int step = 0; step < kLearningSteps; ++step) {
    std::fill(gain.begin(), gain.end(), 0.0);
    std::fill(weight.begin(), weight.end(), 0.0);
    std::fill(background_ratio.begin(), background_ratio.end(), 0.0);
    std::fill(measured.begin(), measured.end(), 0.0);
    for (const Measured& m : recent_) {
      const std::size_t held_nodes = m.rate.size();
      for (std::size_t n = 0; n < held_nodes; ++n)
        predicted[n] = std::max(0.0, background_[n]) + m.fixed[n];
      for (const Term& t : m.terms) predicted[t.node] += t.held * workloads_[t.workload].rate;
      for (std::size_t n = 0; n < held_nodes; ++n) {
        if (m.rate[n] < 0) {
          ratio[n] = 1.0;
          continue;
        }
        const double variable = predicted[n] - m.fixed[n];
        ratio[n] = variable <= 0 ? 1.0 : std::max(0.0, m.rate[n] - m.fixed[n]) / variable;
        background_ratio[n] += ratio[n];
        measured[n] += 1;
      }
      for (const Term& t : m.terms) {
        gain[t.workload] += t.held * ratio[t.node];
        weight[t.workload] += t.held;
      }
    }
    for (std::size_t w = 0; w < gain.size(); ++w) {
      if (weight[w] > 0) workloads_[w].rate *= gain[w] / weight[w];
    }
    for (std::size_t n = 0; n < nodes; ++n) {
      if (measured[n] > 0 && background_[n] > 0)
        background_[n] *= std::sqrt(background_ratio[n] / measured[n]);
    }
  }
}

// Workloads held long enough are known. Their running pods' mean traffic, with the annotated pods'
// declared traffic (the price those pods have, model/placement_ledger), starts a new workload's
// fit; an unknown workload's pods are priced at that mean plus kUnknownPodDeviations deviations
// between the pods, as where each pod's own traffic is read (model/pricing.h says why).
void WorkloadLearner::Fit::summarise(const Observation& seen,
                                     std::span<const std::uint32_t> running_pods) {
  double pod_traffic = 0, squares = seen.declared_squares, running = 0;
  for (std::size_t w = 0; w < running_pods.size(); ++w) {
    if (seen.weight[w] >= kLearnedAfterPodsHeld) workloads_[w].known = true;
    pod_traffic += seen.declared_traffic[w];
    running += seen.declared_weight[w];
    const std::uint32_t undeclared =
        running_pods[w] - std::min(running_pods[w], seen.declared_pods[w]);
    if (workloads_[w].known && undeclared > 0) {
      pod_traffic += workloads_[w].rate * undeclared;
      squares += workloads_[w].rate * workloads_[w].rate * undeclared;
      running += undeclared;
    }
  }
  if (running <= 0) return;
  const double mean = pod_traffic / running;
  rate_per_pod_ = mean;
  unknown_pod_rate_ =
      mean + kUnknownPodDeviations * std::sqrt(std::max(0.0, squares / running - mean * mean));
}

std::optional<double> WorkloadLearner::Fit::workload_rate(std::uint32_t workload) const {
  if (workload >= workloads_.size() || !workloads_[workload].known) return std::nullopt;
  return workloads_[workload].rate;
}

void WorkloadLearner::Fit::forget_workload(std::uint32_t workload) {
  if (workload >= workloads_.size()) return;
  if (workloads_[workload].known || workloads_[workload].rate > 0)
    forgotten_.push_back({.workload = workload, .rate = workloads_[workload].rate});
  workloads_[workload] = Workload{};
}

// The ids forgotten since the last fit may name other workloads from this fit on: their former
// workloads' pods stay in the measurements they were in, at the traffic last learned for them, as
// a fixed part of their nodes. Once per fit, not per forgotten workload: a burst of workloads
// ending together costs one pass.
void WorkloadLearner::Fit::fold_forgotten() {
  if (forgotten_.empty()) return;
  std::vector<double> rate_of(workloads_.size(), -1);
  // The first forgotten under an id owns the terms: one forgotten again before this fit had none.
  for (auto it = forgotten_.rbegin(); it != forgotten_.rend(); ++it)
    rate_of[it->workload] = it->rate;
  forgotten_.clear();
  for (Measured& m : recent_) {
    std::erase_if(m.terms, [&](const Term& t) {
      if (rate_of[t.workload] < 0) return false;
      m.fixed[t.node] += t.held * rate_of[t.workload];
      return true;
    });
  }
}

}  // namespace netscore::model
