#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/prometheus/response_parser.h"
#include "common/config.h"
#include "common/table/score_table_writer.h"

// The correction model: what the cluster's recent placements add to a measurement (pure:
// thread-safe). collector/model/snapshot turns the corrected entries into a table.
//
// Placement correction. A pod placed on a node adds traffic Prometheus' window only shows
// gradually: nothing for `lag` (the pod starts, the next scrape and refresh see it), then a
// linearly growing part until the window has absorbed it all, `lag + window` after placement. A
// pod that left takes its traffic out of the window the same way. What the window misses of the
// first and still holds of the second is the node's `expected` (negative when more left than
// came), added to its raw value:
//   expected = sum over new pods of delta x missing part - sum over gone pods of delta x held part
// with delta, in the raw value's unit:
//   1. the pod's netscore.io/expected-receive-rate annotation (bytes/s) x f, when f is known;
//   2. else its workload's learned traffic per pod (ClusterState::learn) x f, when f is known;
//   3. else the learned traffic per running pod x f;
//   4. else the measured raw per pod: sum of raw / sum of the pods' settled parts over the
//      nodes with a series (needs at least one settled pod's worth in the cluster);
//   5. else NETSCORE_POD_RECEIVE_RATE x f.
// f converts bytes/s to the raw unit: 1 for rate, the window in seconds for increase, and for
// sum_over_time the cluster ratio sum(raw)/sum(rate) of the same answer (a counter growing
// linearly has sum_over_time proportional to its rate: an approximation, exact only in steady
// state); unknown without a rate. Without any usable delta the snapshot is published uncorrected
// and says so (no kSnapshotCorrected). The corrected value is never below 0.
namespace netscore::collector {

// What each node is scored on (NETSCORE_SCORE_BASIS, NETSCORE_DIRECTION,
// NETSCORE_FALLBACK_LINK_SPEED). On the utilisation basis a node whose speed is unknown (no
// positive speed series and no fallback) or whose rate in the direction is missing is scored on
// the raw basis; the two kinds of node are normalised separately, each among its own, because
// bytes and utilisation do not compare.
struct ScoringSettings {
  ScoreBasis basis = ScoreBasis::raw;
  Direction direction = Direction::receive;
  double fallback_speed = 0;  // bytes/s; 0: none

  static ScoringSettings from(const QueryConfig& query) {
    return {
        .basis = query.basis, .direction = query.direction, .fallback_speed = query.fallback_speed};
  }
};

struct CorrectionSettings {
  bool enabled = false;
  QueryFunction function = QueryFunction::sum_over_time;
  std::int64_t window_ms = 300000;
  double default_rate = 0;  // bytes/s
  bool learn_workloads = false;
};

struct CorrectionOutcome {
  bool corrected = false;
  std::string uncorrected_reason{};  // why it was not applied (empty when applied)
  std::int64_t pod_price = 0;        // plugin score of a pod of an unknown workload
  std::uint32_t placed = 0;          // pods, new or gone, counted in some node's expected traffic
};

// The measured rates ClusterState::learn() fits: the nodes whose rate half answered.
std::vector<NodeRate> node_rates(const std::vector<NodeSample>& samples);

// Sets each entry's expected traffic, placed pods, pricing flags and corrected_raw_score from its
// node's load (`load_of[i]` for `entries[i]`; null when no pod of it is watched). Entries keep
// their order; nothing is normalised. `learned_rate_per_pod`: ClusterState::rate_per_pod().
CorrectionOutcome apply_correction(std::vector<TableEntry>& entries,
                                   const std::vector<const NodeLoad*>& load_of,
                                   const CorrectionSettings& settings,
                                   std::optional<double> learned_rate_per_pod);

}  // namespace netscore::collector
