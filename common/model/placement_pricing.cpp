// The placement ledger's prices: the cascade that prices a pod in each direction, and how a priced
// pod's pending or held part counts into its node's load.
#include "common/model/placement_ledger.h"

#include <cstdint>

#include "common/model/pricing.h"

namespace netscore::model {
namespace {

// The cascade's last word: a declared ceiling caps a price, and prices a pod nothing else prices.
PodPrice capped(double rate, PriceSource source, float ceiling) {
  if (ceiling < 0) return {.rate = rate, .source = source};
  if (rate < 0) return {.rate = ceiling * kCeilingPodShare, .source = PriceSource::ceiling};
  if (rate > ceiling) return {.rate = ceiling, .source = PriceSource::ceiling};
  return {.rate = rate, .source = source};
}

}  // namespace

// What was measured comes before what was declared: the pod's own traffic, then its workload's
// running pods' (a declaration is set once, as the workload starts, and traffic moves after it).
PodPrice PlacementLedger::receive_price(const PodRecord& pod) const {
  const float ceiling = pod.receive_ceiling;
  if (pod.measured_rate >= 0) return capped(pod.measured_rate, PriceSource::measurement, ceiling);
  const Workload* w = pod.workload == kNoWorkload ? nullptr : &workloads_[pod.workload];
  if (w && w->measured > 0)
    return capped(w->measured_sum / w->measured, PriceSource::workload_measurement, ceiling);
  if (pod.annotated_rate >= 0) return capped(pod.annotated_rate, PriceSource::annotation, ceiling);
  if (!w) return capped(-1, PriceSource::average, ceiling);
  if (w->learned) return capped(*w->learned, PriceSource::workload, ceiling);
  return capped(-1, PriceSource::average, ceiling);
}

PodPrice PlacementLedger::transmit_price(const PodRecord& pod) const {
  const float ceiling = pod.transmit_ceiling;
  if (pod.measured_transmit_rate >= 0)
    return capped(pod.measured_transmit_rate, PriceSource::measurement, ceiling);
  const Workload* w = pod.workload == kNoWorkload ? nullptr : &workloads_[pod.workload];
  if (w && w->measured_transmit > 0)
    return capped(w->measured_transmit_sum / w->measured_transmit,
                  PriceSource::workload_measurement, ceiling);
  if (pod.annotated_transmit_rate >= 0)
    return capped(pod.annotated_transmit_rate, PriceSource::annotation, ceiling);
  if (!w) return capped(-1, PriceSource::average, ceiling);
  if (w->learned_transmit) return capped(*w->learned_transmit, PriceSource::workload, ceiling);
  return capped(-1, PriceSource::average, ceiling);
}

void PlacementLedger::add_part(NodeLoad& load, const PodRecord& pod, double part,
                               bool departed) const {
  const PodPrice rx = receive_price(pod);
  if (rx.rate >= 0) {
    (departed ? load.departed_known : load.pending_known) += part * rx.rate;
    (departed ? load.departed_known_share : load.pending_known_share) += part;
    ++load.priced_receive[rx.source];
  } else {
    (departed ? load.departed_plain : load.pending_plain) += part;
  }
  const PodPrice tx = transmit_price(pod);
  if (tx.rate >= 0) {
    (departed ? load.departed_transmit_known : load.pending_transmit_known) += part * tx.rate;
    (departed ? load.departed_transmit_known_share : load.pending_transmit_known_share) += part;
    ++load.priced_transmit[tx.source];
  }
}

}  // namespace netscore::model
