#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "common/model/domain.h"
#include "common/model/table_records.h"

// What the collector's side of the model is given: a node's measurement (the Prometheus parser
// produces it), the cluster's pods per node and the window they are seen through (the watcher's
// state produces them), and the settings that say how a node is scored and corrected. Plain
// values: the transport folders fill them, common/model reads them.
namespace netscore::model {

// One node's answer to the batched query.
struct NodeSample {
  std::string node;
  double value = 0;  // may be NaN or ±Inf: Prometheus sends those as "NaN", "+Inf", "-Inf"
  // Average receive rate over the window in bytes/s, answered by the same batched query whatever
  // the scoring function is; rate_valid is false when the answer had no rate for this node.
  double rate = 0;
  bool rate_valid = false;
  // The configured function over the transmit counter (asked only when the raw basis scores
  // transmit), and the average transmit rate in bytes/s; each valid when answered and finite.
  bool transmit_value_valid = false;
  bool transmit_rate_valid = false;
  double transmit_value = 0;
  double transmit_rate = 0;
  // Sum of the node's positive link speeds in bytes/s (0: none), and how many of its devices
  // reported a speed that is not positive.
  double speed = 0;
  std::uint32_t unusable_speeds = 0;
};

// What priced a pod whose rate the correction counts as known, in one direction.
enum class PriceSource {
  measurement,           // the pod's own measured traffic
  annotation,            // its expected-rate annotation
  workload_measurement,  // the mean measured traffic of its workload's pods
  workload,              // its workload's learned traffic per pod
  ceiling,               // its declared bandwidth ceiling (capped, or priced alone)
  average
};

// The entry flag (kEntryPricedBy*, named in kPricedBy) that stands for a price source.
constexpr std::uint32_t priced_by_flag(PriceSource source) noexcept {
  switch (source) {
    case PriceSource::measurement:
      return kEntryPricedByMeasurement;
    case PriceSource::annotation:
      return kEntryPricedByAnnotation;
    case PriceSource::workload_measurement:
      return kEntryPricedByWorkloadMeasurement;
    case PriceSource::workload:
      return kEntryPricedByWorkload;
    case PriceSource::ceiling:
      return kEntryPricedByCeiling;
    case PriceSource::average:
      break;
  }
  return kEntryPricedByAverage;
}

// Of a node's placed and departed pods, how many each source priced in one direction: the pods
// whose rate in it is known. A pod a declared bandwidth ceiling priced (capped, or priced alone by
// kCeilingPodShare) counts under ceiling instead of under its other source.
struct PricedBy {
  std::uint32_t measurement = 0;
  std::uint32_t annotation = 0;
  std::uint32_t workload_measurement = 0;
  std::uint32_t workload = 0;
  std::uint32_t ceiling = 0;

  // The pods `source` priced. The average prices no rate that is known, so no pod is counted
  // under it; it reads the ceiling's count.
  constexpr std::uint32_t& operator[](PriceSource source) noexcept {
    return this->*count_of(source);
  }
  constexpr std::uint32_t operator[](PriceSource source) const noexcept {
    return this->*count_of(source);
  }

  // The entry flags of the sources that priced any of the `pods` placed and departed pods, and
  // kEntryPricedByAverage when some of them none priced.
  constexpr std::uint32_t flags(std::uint32_t pods) const noexcept {
    std::uint32_t out = 0;
    std::uint32_t known = 0;
    for (const PriceSource source :
         {PriceSource::measurement, PriceSource::annotation, PriceSource::workload_measurement,
          PriceSource::workload, PriceSource::ceiling}) {
      if ((*this)[source] > 0) out |= priced_by_flag(source);
      known += (*this)[source];
    }
    if (known < pods) out |= kEntryPricedByAverage;
    return out;
  }

 private:
  static constexpr std::uint32_t PricedBy::*count_of(PriceSource source) noexcept {
    switch (source) {
      case PriceSource::measurement:
        return &PricedBy::measurement;
      case PriceSource::annotation:
        return &PricedBy::annotation;
      case PriceSource::workload_measurement:
        return &PricedBy::workload_measurement;
      case PriceSource::workload:
        return &PricedBy::workload;
      case PriceSource::ceiling:
      case PriceSource::average:
        break;
    }
    return &PricedBy::ceiling;
  }
};

// Per node: the pods counted on it, how much of their traffic the window has not absorbed yet, and
// how much traffic of pods already gone it still holds. A pod's rate in a direction is "known" when
// something priced it (model/placement_ledger's cascade: its own or its workload's measured
// traffic, its annotation, its workload's learned traffic per pod, its bandwidth ceiling).
// The other pods ("plain") are priced by the correction at the cluster's traffic per pod. A pod's
// missing (or held) part is counted once per direction: for transmit, the plain parts are all
// parts (pending_plain + pending_known_share) minus pending_transmit_known_share.
struct NodeLoad {
  std::string name{};
  bool in_cluster = false;  // a watched Node object
  std::uint64_t rule_mask = 0;
  std::uint32_t pods = 0;      // bound, non-terminal pods
  std::uint32_t placed = 0;    // pods whose traffic is not wholly in the window yet
  std::uint32_t departed = 0;  // pods gone whose traffic the window still holds
  double settled = 0;          // sum over pods of the part of their traffic already in the window
  double pending_plain = 0;    // sum of the missing parts of pods without a known rate
  double pending_known = 0;    // sum of missing part x known bytes/s
  double pending_known_share = 0;  // sum of the missing parts of pods with a known rate
  double departed_plain = 0;       // sum of the parts still in the window of gone plain pods
  double departed_known = 0;       // the same x known bytes/s
  double departed_known_share = 0;
  double pending_transmit_known = 0;        // sum of missing part x known transmit bytes/s
  double pending_transmit_known_share = 0;  // sum of the missing parts of those pods
  double departed_transmit_known = 0;       // the same for gone pods, parts held
  double departed_transmit_known_share = 0;
  // Of the placed and departed pods, how many each source priced, per direction.
  PricedBy priced_receive{};
  PricedBy priced_transmit{};
};

// A node's measured rates (bytes/s), what workload learning fits the pods to; < 0: that direction
// not measured.
struct NodeRate {
  std::string node{};
  double rate = -1;
  double transmit_rate = -1;
};

// What workload learning expects a pod of an unknown workload to receive and transmit (bytes/s,
// WorkloadLearner::rate_per_pod() and transmit_rate_per_pod()); nullopt: nothing learned (yet).
struct LearnedRates {
  std::optional<double> receive{};
  std::optional<double> transmit{};
};

// How a pod's traffic reaches Prometheus' window, as of `now_ms` (Unix ms).
struct LoadWindow {
  std::int64_t now_ms = 0;
  std::int64_t lag_ms = 0;     // how long a new pod's traffic takes to reach the window at all
  std::int64_t window_ms = 0;  // the query's range

  // The same window as of another time: the lag and the range are the configuration's, once.
  constexpr LoadWindow at(std::int64_t when_ms) const {
    return {.now_ms = when_ms, .lag_ms = lag_ms, .window_ms = window_ms};
  }
};

// What each node is scored on (NETSCORE_SCORE_BASIS, NETSCORE_DIRECTION,
// NETSCORE_FALLBACK_LINK_SPEED). On the utilisation basis a node whose speed is unknown (no
// positive speed series and no fallback) or whose rate in the direction is missing is scored on
// the raw basis; the two kinds of node are normalised separately, each among its own, because
// bytes and utilisation do not compare.
struct ScoringSettings {
  ScoreBasis basis = ScoreBasis::raw;
  Direction direction = Direction::receive;
  double fallback_speed = 0;  // bytes/s; 0: none
};

struct CorrectionSettings {
  bool enabled = false;
  QueryFunction function = QueryFunction::sum_over_time;
  std::int64_t window_ms = 300000;
  double default_rate = 0;  // bytes/s received by a pod nothing better prices
  WorkloadLearning learn_workloads = WorkloadLearning::off;
  double default_transmit_rate = 0;  // bytes/s transmitted by a pod nothing better prices
};

// Whether the fit of node rates prices pods now: `pod_traffic_in_use`, per-pod series are read.
constexpr bool learns_workloads(const CorrectionSettings& settings, bool pod_traffic_in_use) {
  return settings.enabled && (settings.learn_workloads == WorkloadLearning::on ||
                              (settings.learn_workloads == WorkloadLearning::without_pod_traffic &&
                               !pod_traffic_in_use));
}

}  // namespace netscore::model
