#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/model/inputs.h"
#include "common/model/table_records.h"

// The correction model: what the cluster's recent placements add to a measurement (pure:
// thread-safe). model/snapshot turns the corrected entries into a table.
//
// Placement correction. A pod placed on a node adds traffic Prometheus' window only shows
// gradually: nothing for `lag` (the pod starts, the next scrape and refresh see it), then a
// linearly growing part until the window has absorbed it all, `lag + window` after placement. A
// pod that left takes its traffic out of the window the same way. What the window misses of the
// first and still holds of the second is the node's change, per direction:
//   delta = sum over new pods of d x missing part - sum over gone pods of d x held part
// with d a pod's traffic in that direction, priced by a cascade. Receive:
//   1. the pod's netscore.io/expected-receive-rate annotation (bytes/s);
//   2. else its workload's learned traffic per pod (model/workload_learning);
//   3. else the learned price of an unknown pod (the known workloads' running pods' and the
//      annotated pods' mean plus kUnknownPodDeviations deviations);
//   4. else the measured traffic per pod: the sum over the nodes with pods of their measurement
//      divided by the sum of their pods' settled parts (needs one settled pod's worth);
//   5. else the default rate (config_types.h: KubeConfig::pod_receive_rate).
// Transmit the same way: the netscore.io/expected-transmit-rate annotation, the learned transmit
// rates (fitted to the nodes' transmit rates), the measured transmit per settled pod, else
// the default transmit rate.
// Where the traffic per pod is measured, a pod's own measured traffic and then its workload's
// measured mean come before 1. A declared bandwidth ceiling caps these, 1. and 2., and replaces
// 3. to 5. by kCeilingPodShare of it
// (model/placement_ledger prices all but 3. to 5. as known).
// Each entry is corrected in its own basis and the snapshot's direction (busier: the larger of
// the two corrected directions, or the one the node measured):
// - utilisation (kEntryUtilisation): the changes in bytes/s; corrected = (rate + delta) / speed;
// - raw: the changes in the query function's unit, bytes/s x f (the annotations, learned and
//   default rates) or the measured raw value per settled pod; corrected = raw value + delta.
// f converts bytes/s to the raw unit: 1 for rate, the window in seconds for increase, and for
// sum_over_time the cluster ratio sum(raw)/sum(rate) of the same answer, per direction (a counter
// growing linearly has sum_over_time proportional to its rate: an approximation, exact only in
// steady state); unknown without rates, when a pod's known rate cannot be converted and it costs
// the measured raw value per pod like the others. `expected` = corrected - scored, in scored's
// unit; the corrected score is that of max(0, corrected). Measured figures are never changed. When
// a raw entry's change needs a price that cannot be had (no f, no settled pod), the snapshot is
// published uncorrected and says so (no kSnapshotCorrected).
namespace netscore::model {

struct CorrectionOutcome {
  bool corrected = false;
  std::string uncorrected_reason{};  // why it was not applied (empty when applied)
  // What a pod of an unknown workload adds to a raw-scored node's score integer, in the direction
  // (busier: the larger); on the utilisation basis at least 1 while pod_rate is positive, so that
  // a positive price keeps meaning the correction prices pods.
  std::int64_t pod_price = 0;
  // Bytes/s of a pod of an unknown workload in the direction (busier: the larger): a
  // utilisation-scored node's price is utilisation_score(pod_rate / speed).
  double pod_rate = 0;
  std::uint32_t placed = 0;  // pods, new or gone, counted in some node's expected traffic
};

// The missing part of a pod's traffic `age_ms` after its placement: 1 until `lag`, then falling
// linearly to 0 over the window. Read `age_ms` as the time since a pod left and it is the part of
// its traffic the window still holds.
double pending_fraction(std::int64_t age_ms, const LoadWindow& window);

// The part of a gone pod's traffic the window still holds: what it had absorbed when the pod left
// (placed at placed_ms, gone at left_ms), leaving the window as a new pod's traffic enters it.
double held_fraction(std::int64_t placed_ms, std::int64_t left_ms, const LoadWindow& window);

// The measured rates workload learning fits: the nodes whose receive or transmit rate answered.
std::vector<NodeRate> node_rates(const std::vector<NodeSample>& samples);

// Sets each entry's expected traffic, placed pods, pricing flags and corrected_raw_score from its
// node's load (`load_of[i]` for `entries[i]`; null when no pod of it is watched), in the entry's
// basis and `scoring.direction`. Entries keep their order; nothing is normalised; an invalid entry
// gets placed pods and flags but no expected traffic (it has no unit). `learned_per_pod`: what
// workload learning expects a pod of an unknown workload to cost, per direction.
CorrectionOutcome apply_correction(std::vector<TableEntry>& entries,
                                   const std::vector<const NodeLoad*>& load_of,
                                   const CorrectionSettings& settings,
                                   const LearnedRates& learned_per_pod,
                                   const ScoringSettings& scoring);

}  // namespace netscore::model
