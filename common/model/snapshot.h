#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/model/inputs.h"
#include "common/model/table_records.h"

// Snapshot assembly: a measurement's usable series (model/figures; with a synced view of the
// cluster, its nodes and model/correction) become the table's entries, scored and normalised as
// the plugin's NormalizeScore does (pure: thread-safe).
namespace netscore::model {

struct BuiltSnapshot {
  std::vector<TableEntry> entries{};  // sorted by name
  SnapshotInfo info{};
  bool corrected = false;
  std::string
      uncorrected_reason{};  // why correction is off for this snapshot (empty when on or disabled)
  std::uint32_t placed = 0;  // pods, new or gone, counted in some node's expected traffic
};

// What a measurement alone decides of a snapshot: its entries' measured figures and seed scores
// (node_score), in name order. Only a new measurement changes it, so a publisher keeps it for the
// republishes cluster changes cause instead of measuring, sorting and normalising every node again
// for each binding.
struct MeasuredSnapshot {
  std::vector<TableEntry> entries{};
  std::vector<std::size_t> name_order{};  // indices into the samples, in name order
  std::int64_t eval_time_ms = 0;
};

// `order_hint`: an earlier measurement's name_order. Prometheus answers a query about the same
// series in the same order from one refresh to the next, so when the hint orders these samples
// too (checked in one pass) it is kept instead of sorting them again; the result is the same.
MeasuredSnapshot measure_snapshot(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                                  const ScoringSettings& scoring = {},
                                  std::span<const std::size_t> order_hint = {});

// `loads` null: no synced view of the cluster, so exactly the measurement (today's table:
// corrected_* equal the seed values, expected 0). Otherwise entries are the union of series
// nodes and watched nodes; a watched node without a series is an invalid (neutral) entry.
// `learned_per_pod`: what workload learning expects a pod of an unknown workload to cost.
BuiltSnapshot build_snapshot(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                             const std::vector<NodeLoad>* loads, const CorrectionSettings& settings,
                             std::uint64_t rules_hash, const LearnedRates& learned_per_pod = {},
                             const ScoringSettings& scoring = {});
// The same from a kept measurement (measured with the same `scoring`).
BuiltSnapshot build_snapshot(const MeasuredSnapshot& measured, const std::vector<NodeLoad>* loads,
                             const CorrectionSettings& settings, std::uint64_t rules_hash,
                             const LearnedRates& learned_per_pod = {},
                             const ScoringSettings& scoring = {});

// A built snapshot and the room to build the next one in: a caller building one snapshot after
// another (a republish per binding) keeps these so the entries' names are not allocated anew.
struct SnapshotBuffers {
  BuiltSnapshot built{};
  std::vector<TableEntry> spare{};
};
// The same into `buffers` (the result is buffers.built).
const BuiltSnapshot& build_snapshot(const MeasuredSnapshot& measured,
                                    const std::vector<NodeLoad>* loads,
                                    const CorrectionSettings& settings, std::uint64_t rules_hash,
                                    const LearnedRates& learned_per_pod,
                                    const ScoringSettings& scoring, SnapshotBuffers& buffers);

}  // namespace netscore::model
