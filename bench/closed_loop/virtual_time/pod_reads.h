#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "bench/closed_loop/virtual_time/pod_counters.h"
#include "common/model/inputs.h"
#include "common/model/placement_ledger.h"

// The collector's reads of the traffic per pod in virtual time, fed to the ledger as the
// publisher feeds it (collector/pipeline/publisher measure_pods): a full read of every pod's rate
// over the window at the first refresh and then every NETSCORE_POD_TRAFFIC_INTERVAL. With
// `recent`, also at every refresh the pods the last full read held only part of (bound within
// lag + window before it) over a short range, a model of a bounded per-refresh read of recent
// pods: each such pod is handed to the ledger at its rate over that range, in the form the
// ledger's one entry point takes (a rate over the window, the held part of it).
namespace netscore::sim {

struct PodReadSettings {
  std::int64_t interval_ms = 0;  // between full reads
  model::LoadWindow window{};    // lag and window as the publisher passes them; now_ms unused
  bool recent = false;
  std::int64_t recent_range_ms = 0;
};

class PodReads {
 public:
  // `placed_ms(pod)`: when the ledger counts the pod placed from.
  PodReads(const PodReadSettings& settings, std::function<std::int64_t(std::uint32_t)> placed_ms)
      : settings_(settings), placed_ms_(std::move(placed_ms)) {}

  // At a refresh evaluated at `eval_ms`: the reads due, handed to `ledger`.
  void refresh(const PodCounters& counters, model::PlacementLedger& ledger, std::int64_t eval_ms);

  std::uint64_t full_reads() const { return full_reads_; }
  std::uint64_t recent_reads() const { return recent_reads_; }

 private:
  void read_recent(const PodCounters& counters, model::PlacementLedger& ledger,
                   std::int64_t eval_ms);

  PodReadSettings settings_;
  std::function<std::int64_t(std::uint32_t)> placed_ms_;
  std::int64_t next_full_ms_ = 0;
  bool read_once_ = false;
  std::int64_t last_full_ms_ = 0;
  std::vector<model::MeasuredPod> last_full_{};
  std::uint64_t full_reads_ = 0, recent_reads_ = 0;
};

}  // namespace netscore::sim
