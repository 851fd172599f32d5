#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "bench/closed_loop/workload/workload.h"
#include "bench/closed_loop/workload/workload_raw.h"

namespace netscore::sim::raw {
namespace {

// At equal t a rescale comes after the removes and the creates: a pod created at its
// workload's drift moment is created at the new rate and is not rescaled again.
int rank(TraceEvent::Kind kind) {
  switch (kind) {
    case TraceEvent::Kind::remove:
      return 0;
    case TraceEvent::Kind::create:
      return 1;
    case TraceEvent::Kind::rescale:
      break;
  }
  return 2;
}

// Workload d's drift: when it starts and the factor it reaches (1: none).
struct Drift {
  double moment = 0;
  double factor = 1;
};

std::vector<Drift> draw_drifts(const WorkloadParams& p, const Trace& trace) {
  std::vector<Drift> drifts(trace.deployments.size());
  std::vector<std::uint32_t> running;  // the workloads with pods running at their moment
  for (std::uint32_t d = 0; d < trace.deployments.size(); ++d) {
    Random random(stream_seed(p.seed, drift_stream + std::uint64_t{d}));
    const double u = random.open01();
    drifts[d].moment = random.uniform(p.drift_from, p.drift_to) * p.duration_s;
    if (p.drift_workloads > 0) {
      const bool runs = std::any_of(trace.pods.begin(), trace.pods.end(), [&](const auto& pod) {
        return pod.deployment == d && pod.created_s < drifts[d].moment &&
               pod.deleted_s > drifts[d].moment;
      });
      if (runs) running.push_back(d);
    } else if (u < p.drift_grow_fraction) {
      drifts[d].factor = p.drift_grow_factor;
    } else if (u < p.drift_grow_fraction + p.drift_shrink_fraction) {
      drifts[d].factor = p.drift_shrink_factor;
    }
  }
  Random pick(stream_seed(p.seed, drift_choice_stream));
  for (unsigned chosen = 0; chosen < p.drift_workloads && !running.empty(); ++chosen) {
    const auto at = static_cast<std::size_t>(pick.open01() * static_cast<double>(running.size()));
    drifts[running[std::min(at, running.size() - 1)]].factor = p.drift_grow_factor;
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(std::min(at, running.size() - 1)));
  }
  return drifts;
}

}  // namespace

void add_drift(const WorkloadParams& p, Trace& trace) {
  if (p.drift_grow_fraction <= 0 && p.drift_shrink_fraction <= 0 && p.drift_workloads == 0) return;
  const std::vector<Drift> drifts = draw_drifts(p, trace);
  // A gradual drift is kDriftSteps steps of the same factor, each one a step of its own.
  const unsigned steps = p.drift_ramp > 0 ? WorkloadParams::kDriftSteps : 1;
  const double step_s = p.drift_ramp * p.duration_s / steps;
  std::vector<TraceEvent> rescales;
  for (std::uint32_t d = 0; d < trace.deployments.size(); ++d) {
    if (drifts[d].factor == 1) continue;
    trace.deployments[d].drift_s = drifts[d].moment;
    trace.deployments[d].drift_factor = drifts[d].factor;
    const double factor = std::pow(drifts[d].factor, 1.0 / steps);
    for (unsigned step = 0; step < steps; ++step) {
      const double moment = drifts[d].moment + step * step_s;
      TraceEvent event{
          .t = moment, .kind = TraceEvent::Kind::rescale, .pods = {}, .factor = factor};
      for (auto& pod : trace.pods) {
        if (pod.deployment != d) continue;
        if (pod.created_s >= moment) {
          pod.rate *= factor;
          pod.transmit_rate *= factor;
        } else if (pod.deleted_s > moment) {
          event.pods.push_back(pod.id);
        }
      }
      if (!event.pods.empty()) rescales.push_back(std::move(event));
    }
  }
  const auto earlier = [](const TraceEvent& a, const TraceEvent& b) {
    return a.t != b.t ? a.t < b.t : rank(a.kind) < rank(b.kind);
  };
  std::stable_sort(rescales.begin(), rescales.end(), earlier);
  std::vector<TraceEvent> merged;
  merged.reserve(trace.events.size() + rescales.size());
  std::merge(std::make_move_iterator(trace.events.begin()),
             std::make_move_iterator(trace.events.end()), std::make_move_iterator(rescales.begin()),
             std::make_move_iterator(rescales.end()), std::back_inserter(merged), earlier);
  trace.events = std::move(merged);
}

}  // namespace netscore::sim::raw
