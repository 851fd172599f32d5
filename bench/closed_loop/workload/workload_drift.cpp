#include <algorithm>
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

}  // namespace

void add_drift(const WorkloadParams& p, Trace& trace) {
  if (p.drift_grow_fraction <= 0 && p.drift_shrink_fraction <= 0) return;
  std::vector<TraceEvent> rescales;
  for (std::uint32_t d = 0; d < trace.deployments.size(); ++d) {
    Random random(stream_seed(p.seed, drift_stream + std::uint64_t{d}));
    const double u = random.open01();
    const double moment = random.uniform(p.drift_from, p.drift_to) * p.duration_s;
    double factor = 1;
    if (u < p.drift_grow_fraction) {
      factor = p.drift_grow_factor;
    } else if (u < p.drift_grow_fraction + p.drift_shrink_fraction) {
      factor = p.drift_shrink_factor;
    }
    if (factor == 1) continue;
    trace.deployments[d].drift_s = moment;
    trace.deployments[d].drift_factor = factor;
    TraceEvent event{.t = moment, .kind = TraceEvent::Kind::rescale, .pods = {}, .factor = factor};
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
