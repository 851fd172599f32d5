// The placement ledger's intake of measured traffic per pod, and what it tells of its pods: those
// placed recently, and every bound pod at its prices.
#include "common/model/placement_ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/model/correction.h"
#include "common/model/pricing.h"

namespace netscore::model {
namespace {

// A measured rate per second of what the window held of it; -1 (not measured) when unusable.
float per_second(double value, double held) {
  return static_cast<float>(std::isfinite(value) && value >= 0 ? value / held : -1);
}

}  // namespace

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
  const auto add = [&](const PodRecord& pod) {
    if (pod.workload == kNoWorkload) return;
    Workload& w = workloads_[pod.workload];
    if (pod.measured_rate >= 0) {
      w.measured_sum += pod.measured_rate;
      ++w.measured;
    }
    if (pod.measured_transmit_rate >= 0) {
      w.measured_transmit_sum += pod.measured_transmit_rate;
      ++w.measured_transmit;
    }
  };
  for (const auto& [uid, pod] : pods_) add(pod);
  // A gone pod's last measurement still says what its workload's pods cost while the workload is
  // known (as long as workload learning remembers it): the next pods of a CI project whose last
  // pipeline just ended are priced by it, not at the cluster's average.
  for (const Departed& gone : departed_) add(gone.pod);
}

LearnedRates PlacementLedger::measured_per_pod() const {
  double receive = 0, transmit = 0, receive2 = 0, transmit2 = 0;  // sums and sums of squares
  std::uint32_t received = 0, transmitted = 0;
  const auto add = [&](const PodRecord& pod) {
    if (pod.measured_rate >= 0) {
      receive += pod.measured_rate;
      receive2 += pod.measured_rate * pod.measured_rate;
      ++received;
    }
    if (pod.measured_transmit_rate >= 0) {
      transmit += pod.measured_transmit_rate;
      transmit2 += pod.measured_transmit_rate * pod.measured_transmit_rate;
      ++transmitted;
    }
  };
  for (const auto& [uid, pod] : pods_) add(pod);
  for (const Departed& gone : departed_) add(gone.pod);
  // Mean plus kUnknownPodDeviations standard deviations: see pricing.h.
  const auto hedged = [](double sum, double squares, std::uint32_t n) -> std::optional<double> {
    if (n == 0) return std::nullopt;
    const double mean = sum / n;
    return mean + kUnknownPodDeviations * std::sqrt(std::max(0.0, squares / n - mean * mean));
  };
  return {.receive = hedged(receive, receive2, received),
          .transmit = hedged(transmit, transmit2, transmitted)};
}

bool window_measures_pod(std::int64_t age_ms, const LoadWindow& read) {
  return 1.0 - pending_fraction(age_ms, read) >= kMeasuredAfterHeld;
}

std::vector<PlacedPod> PlacementLedger::pods_placed_since(std::int64_t since_ms) const {
  std::vector<PlacedPod> out;
  for (const auto& [uid, recent] : recent_) {
    if (recent.placed_ms >= since_ms && !recent.pod->name.empty())
      out.push_back({.name = recent.pod->name, .placed_ms = recent.placed_ms});
  }
  return out;
}

void PlacementLedger::recent_pods(const std::function<void(const RecentPod&)>& visit) const {
  for (const auto& [uid, recent] : recent_) {
    visit({.uid = uid,
           .name = recent.pod->name,
           .node = node_names_[recent.pod->node],
           .placed_ms = recent.placed_ms,
           .receive = receive_price(*recent.pod),
           .transmit = transmit_price(*recent.pod)});
  }
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

}  // namespace netscore::model
