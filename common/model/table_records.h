#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/model/domain.h"

// What the model writes to the score table and reads back from it: one node's figures and the
// snapshot's facts. The table (common/table) stores NodeFigures and SnapshotMeta as they are, as
// fixed-width words: common/table/score_table_layout.h asserts their layout, and any change here
// bumps its kLayoutVersion.
namespace netscore::model {

// NodeFigures::flags.
inline constexpr std::uint32_t kEntryValid = 1U;  // raw is a usable number: the node can be scored
inline constexpr std::uint32_t kEntryHasSeries = 2U;  // Prometheus answered a series for this node
// The node exists in the watched Kubernetes API.
inline constexpr std::uint32_t kEntryInCluster = 4U;
// `rule_mask` was computed from the node's labels.
inline constexpr std::uint32_t kEntryLabelsKnown = 8U;
// `rate` holds the average receive rate over the window.
inline constexpr std::uint32_t kEntryRateValid = 16U;
// Where `expected` priced the node's new or gone pods (any combination).
inline constexpr std::uint32_t kEntryPricedByAnnotation = 32U;  // their expected-rate annotation
inline constexpr std::uint32_t kEntryPricedByWorkload = 64U;    // their workload's learned traffic
inline constexpr std::uint32_t kEntryPricedByAverage = 128U;    // the cluster's traffic per pod
// `raw_transmit` holds the configured function over the transmit counter.
inline constexpr std::uint32_t kEntryTransmitValid = 256U;
// `transmit_rate` holds the average transmit rate over the window.
inline constexpr std::uint32_t kEntryTransmitRateValid = 512U;
// Where `speed` came from: the node's speed series, or the configured fallback speed.
inline constexpr std::uint32_t kEntrySpeedMeasured = 1024U;
inline constexpr std::uint32_t kEntrySpeedFallback = 2048U;
// Some matched device reported a link speed that is not positive (node-exporter's -1).
inline constexpr std::uint32_t kEntrySpeedUnusable = 4096U;
// `scored` is link utilisation (rate / speed); otherwise bytes, on the raw basis.
inline constexpr std::uint32_t kEntryUtilisation = 8192U;
// Pods whose price a declared bandwidth ceiling set (capped or priced alone).
inline constexpr std::uint32_t kEntryPricedByCeiling = 16384U;
// Pods priced by their own measured traffic per pod, and by their workload's measured mean.
inline constexpr std::uint32_t kEntryPricedByMeasurement = 32768U;
inline constexpr std::uint32_t kEntryPricedByWorkloadMeasurement = 65536U;

// The pricing flags' names, in the order /table and /explain list them.
inline constexpr std::array<std::pair<std::uint32_t, std::string_view>, 6> kPricedBy{
    {{kEntryPricedByMeasurement, "own measurement"},
     {kEntryPricedByAnnotation, "annotation"},
     {kEntryPricedByWorkloadMeasurement, "workload measured"},
     {kEntryPricedByWorkload, "workload learned"},
     {kEntryPricedByCeiling, "ceiling"},
     {kEntryPricedByAverage, "cluster average"}}};
// The pricing flags of entry flags packed one bit per kPricedBy position, and back: the
// extender's decision records keep them in a byte.
constexpr std::uint8_t pack_priced_by(std::uint32_t entry_flags) noexcept {
  std::uint8_t packed = 0;
  for (std::size_t i = 0; i < kPricedBy.size(); ++i) {
    if ((entry_flags & kPricedBy[i].first) != 0) packed |= static_cast<std::uint8_t>(1U << i);
  }
  return packed;
}
constexpr std::uint32_t unpack_priced_by(std::uint8_t packed) noexcept {
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i < kPricedBy.size(); ++i) {
    if ((packed & (1U << i)) != 0) flags |= kPricedBy[i].first;
  }
  return flags;
}

// SnapshotMeta::flags.
// Placement correction applied to corrected_*.
inline constexpr std::uint32_t kSnapshotCorrected = 1U;
// kEntryInCluster and kEntryLabelsKnown are meaningful.
inline constexpr std::uint32_t kSnapshotClusterSynced = 2U;

inline constexpr std::size_t kMaxLabelRules = 64;  // one NodeFigures::rule_mask bit each

// The figures of one node: what the collector measured and derived, and how the extender reads
// it. The writer and the reader move it whole, so a figure added here reaches every reader without
// touching them. Trivially copyable, stored as words: keep it a multiple of 8 bytes with no
// padding.
struct NodeFigures {
  double raw = 0;  // the query's receive value, as Prometheus returned it
  // The integer the scores are computed from: plugin_score(scored), the Go plugin's int64 Score on
  // the raw basis; utilisation_score(scored) when kEntryUtilisation.
  std::int64_t raw_score = 0;
  std::int64_t node_score = 0;  // 0..100, normalised over the whole cluster
  std::int64_t sample_ms = 0;   // evaluation time of the sample
  double rate = 0;              // average receive rate over the window in bytes/s (kEntryRateValid)
  // Traffic placed pods are expected to add, in scored's unit; 0 without correction.
  double expected = 0;
  // The score integer of scored + expected; equals raw_score when expected is 0.
  std::int64_t corrected_raw_score = 0;
  // 0..100 normalised over the whole cluster from corrected_raw_score.
  std::int64_t corrected_node_score = 0;
  std::uint32_t placed_pods = 0;  // pods counted in `expected`
  std::uint32_t flags = 0;        // kEntry*
  // Bit i: the node's labels satisfy label rule i (kEntryLabelsKnown).
  std::uint64_t rule_mask = 0;
  double raw_transmit = 0;   // the query's transmit value (kEntryTransmitValid)
  double transmit_rate = 0;  // average transmit rate over the window in bytes/s
  double speed = 0;          // link speed in bytes/s (kEntrySpeedMeasured or kEntrySpeedFallback)
  // What the node is scored on, in the snapshot's basis and direction: bytes on the raw basis,
  // rate / speed when kEntryUtilisation.
  double scored = 0;

  bool valid() const noexcept { return (flags & kEntryValid) != 0; }
};

// One node as the model builds it for the table: its figures and its name. Aggregate
// initialisation puts the figures first: TableEntry{{.raw = ..., .flags = ...}, "name"}.
struct TableEntry : NodeFigures {
  std::string name;
};

// One node as looked up in the table; all figures zero when not found.
struct NodeScore : NodeFigures {
  bool found = false;
};

// A snapshot as published: what the model decides of it (SnapshotInfo), the table's own counts
// and times around it (SnapshotMeta).
struct SnapshotInfo {
  std::int64_t eval_time_ms = 0;
  std::uint32_t flags = 0;  // kSnapshot*
  std::uint64_t rules_hash = 0;
  std::int64_t pod_price = 0;  // SnapshotMeta::pod_price
  ScoreBasis basis = ScoreBasis::raw;
  Direction direction = Direction::receive;
  double pod_rate = 0;  // SnapshotMeta::pod_rate
};

struct SnapshotMeta {
  std::uint64_t publish_id;  // 1 for the first snapshot, +1 per publish
  std::int64_t published_wall_ms;
  std::int64_t published_mono_ns;
  std::int64_t eval_time_ms;  // Prometheus evaluation time the snapshot answers for
  std::uint32_t node_count;
  std::uint32_t overflow;  // nodes that did not fit the capacity
  std::uint32_t rejected;  // names too long or duplicated
  std::uint32_t valid_count;
  std::int64_t max_raw_score;
  std::int64_t max_corrected_raw_score;
  std::uint32_t flags;             // kSnapshot*
  std::uint32_t in_cluster_count;  // entries with kEntryInCluster
  std::uint64_t rules_hash;  // label_rules_hash() of the rules rule_mask was computed with; 0: none
  // What one more pod of a workload nobody knows yet adds to a raw-scored node's
  // corrected_raw_score (the correction's price of a pod, kSnapshotCorrected only); 0: unknown.
  // Positive whenever the correction can price a pod, also on the utilisation basis.
  std::int64_t pod_price;
  std::uint32_t basis;      // ScoreBasis the entries were scored on
  std::uint32_t direction;  // Direction they were scored in
  // Bytes/s of such a pod in the direction (busier: the larger of the two): a utilisation-scored
  // node's price is utilisation_score(pod_rate / speed), its unit depending on its speed.
  double pod_rate;
};

}  // namespace netscore::model
