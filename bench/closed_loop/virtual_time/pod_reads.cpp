#include "bench/closed_loop/virtual_time/pod_reads.h"

#include <string>
#include <unordered_set>
#include <vector>

#include "common/model/correction.h"

namespace netscore::sim {

void PodReads::refresh(const PodCounters& counters, model::PlacementLedger& ledger,
                       std::int64_t eval_ms) {
  model::LoadWindow at = settings_.window;
  at.now_ms = eval_ms;
  if (!read_once_ || eval_ms >= next_full_ms_) {
    last_full_.clear();
    for (const PodRead& read : counters.read(eval_ms, at.window_ms))
      last_full_.push_back(read.rates);
    last_full_ms_ = eval_ms;
    next_full_ms_ = eval_ms + settings_.interval_ms;
    read_once_ = true;
    ++full_reads_;
    if (!settings_.recent) ledger.measure_pods(last_full_, at);
  }
  if (settings_.recent) read_recent(counters, ledger, eval_ms);
}

void PodReads::read_recent(const PodCounters& counters, model::PlacementLedger& ledger,
                           std::int64_t eval_ms) {
  model::LoadWindow at = settings_.window;
  at.now_ms = eval_ms;
  const std::int64_t partly_held_after = last_full_ms_ - at.lag_ms - at.window_ms;
  const auto recent = counters.read(eval_ms, settings_.recent_range_ms, [&](std::uint32_t pod) {
    return placed_ms_(pod) > partly_held_after;
  });
  ++recent_reads_;
  std::unordered_set<std::string> recent_names;
  for (const PodRead& read : recent) recent_names.insert(read.rates.name);
  // The full read's pods it held whole keep its rates: their held part is 1 then and now.
  std::vector<model::MeasuredPod> measured;
  for (const model::MeasuredPod& pod : last_full_)
    if (!recent_names.contains(pod.name)) measured.push_back(pod);
  // The ledger divides a rate over the window by the part of it the pod held: a recent pod's rate
  // over the short range goes in multiplied by that part, so that its price is that rate.
  for (const PodRead& read : recent) {
    const double held = 1.0 - model::pending_fraction(eval_ms - placed_ms_(read.pod), at);
    model::MeasuredPod pod = read.rates;
    if (pod.receive >= 0) pod.receive *= held;
    if (pod.transmit >= 0) pod.transmit *= held;
    measured.push_back(pod);
  }
  ledger.measure_pods(measured, at);
}

}  // namespace netscore::sim
