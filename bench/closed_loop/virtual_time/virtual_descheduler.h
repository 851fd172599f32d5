#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/reports/eviction_log.h"
#include "bench/closed_loop/virtual_time/cluster_traffic.h"
#include "bench/closed_loop/virtual_time/descheduler_model.h"
#include "bench/closed_loop/virtual_time/labeler_model.h"
#include "bench/closed_loop/virtual_time/node_query.h"
#include "collector/kube/cluster_state.h"
#include "common/config.h"
#include "common/model/rebalance.h"
#include "common/table/score_table_reader.h"

// deploy/overlays/descheduler in virtual time: the descheduler's cycle on the recorded
// utilisation (descheduler_model.h) and, under a netscore policy, the collector's labeler
// nominating what it may evict (labeler_model.h), with the log of what was evicted and where it
// landed.
namespace netscore::sim {

class VirtualDescheduler {
 public:
  // `collector`: the collector's settings at the loop's time scale; `table`: the one it publishes.
  VirtualDescheduler(const Config& collector, const Policy& policy, const LoopParams& params,
                     const std::string& table);

  // Seconds of virtual time between cycles.
  double interval_s() const { return interval_s_; }
  // At a refresh: the labeler's round on the utilisation it reads then.
  void label(const collector::ClusterState& state, const ClusterTraffic& traffic,
             std::int64_t now_ms);
  // Whether the overlay's policy lets a running ReplicaSet pod go: old enough and, under netscore,
  // nominated.
  bool evictable(std::int64_t placed_ms, const std::string& name, std::int64_t now_ms) const;
  // The pods a cycle at `now_ms` evicts of `evictable`.
  std::vector<std::uint32_t> cycle(const ClusterTraffic& traffic,
                                   const std::vector<EvictablePod>& evictable,
                                   std::int64_t now_ms) const;
  EvictionLog& log() { return log_; }
  const EvictionLog& log() const { return log_; }

 private:
  // The load the recording rules give each node at `now_ms` (above 1 where the trace is).
  RecordedLoad load(const ClusterTraffic& traffic, std::int64_t now_ms) const;

  const Config& collector_;
  double interval_s_;
  std::int64_t window_ms_;  // NETSCORE_REBALANCE_WINDOW
  model::RebalanceSettings settings_;
  EvictionLog log_;
  std::optional<LabelerModel> labeler_;
  ScoreTableReader table_;  // the labeler's
};

}  // namespace netscore::sim
