#include "collector/pipeline/placement_records.h"

#include <vector>

namespace netscore::collector {

shm::PlacementRecord placement_record(const model::RecentPod& pod, std::int64_t now_wall_ms) {
  shm::PlacementRecord r{};
  r.placed_wall_ms = pod.placed_ms;
  r.written_wall_ms = now_wall_ms;
  r.receive_rate = pod.receive.rate;
  r.transmit_rate = pod.transmit.rate;
  r.receive_priced_by = model::priced_by_flag(pod.receive.source);
  r.transmit_priced_by = model::priced_by_flag(pod.transmit.source);
  shm::set_placement_names(r, pod.node, pod.name);
  return r;
}

void PlacementRecords::record(const ClusterState& state, ScoreTableWriter& writer,
                              std::int64_t now_wall_ms) {
  const std::uint64_t call = ++calls_;
  // Built under the state's lock, written after it: the watcher threads wait for the visit only.
  std::vector<shm::PlacementRecord> changed;
  state.recent_pods([&](const model::RecentPod& pod) {
    // A pod on its node's network has no name to list, and no traffic of its own.
    if (pod.name.empty()) return;
    const std::uint32_t receive = model::priced_by_flag(pod.receive.source);
    const std::uint32_t transmit = model::priced_by_flag(pod.transmit.source);
    auto it = written_.find(pod.uid);
    if (it == written_.end()) it = written_.emplace(std::string(pod.uid), Written{}).first;
    Written& w = it->second;
    const bool fresh = w.seen == 0;
    w.seen = call;
    if (!fresh && w.receive_priced_by == receive && w.transmit_priced_by == transmit) return;
    w.receive_priced_by = receive;
    w.transmit_priced_by = transmit;
    changed.push_back(placement_record(pod, now_wall_ms));
  });
  for (const auto& r : changed) writer.record_placement(r);
  std::erase_if(written_, [&](const auto& entry) { return entry.second.seen != call; });
}

}  // namespace netscore::collector
