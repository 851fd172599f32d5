#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "collector/kube/cluster_state.h"
#include "common/table/score_table_writer.h"

// The recent placements /explain?node= lists: a record in the table's ring per pod the correction
// counts as placed, written at the first publish that counts it and again whenever the source of
// either of its prices changes (its own measurement arriving, say). Only those records are
// written: the pods that stay as they were cost a lookup each. Not thread-safe: the publisher
// calls it under its write lock.
namespace netscore::collector {

class PlacementRecords {
 public:
  // Writes what is new or changed among the recent pods; forgets the pods no longer recent.
  void record(const ClusterState& state, ScoreTableWriter& writer, std::int64_t now_wall_ms);

 private:
  struct Written {
    std::uint32_t receive_priced_by = 0;
    std::uint32_t transmit_priced_by = 0;
    std::uint64_t seen = 0;  // the record() call that last found the pod recent
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Written, Hash, std::equal_to<>> written_;  // by uid
  std::uint64_t calls_ = 0;
};

// A pod's record as stored: the node's name whole, the pod's cut to shm::kPodNameBytes.
shm::PlacementRecord placement_record(const model::RecentPod& pod, std::int64_t now_wall_ms);

}  // namespace netscore::collector
