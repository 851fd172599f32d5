#include "bench/closed_loop/virtual_time/labeler_model.h"

#include <vector>

#include "common/table/rebalance_inputs.h"

namespace netscore::sim {

void LabelerModel::round(const ScoreTableReader& table, const collector::ClusterState& ledger,
                         const Config& collector, const model::LinkLoads& loads,
                         std::int64_t now_ms) {
  std::vector<TableRow> rows;
  shm::SnapshotMeta meta{};
  if (table.read_all(rows, meta) != ReadStatus::ok) return;
  const model::LearnedRates learned = ledger.learned_per_pod();
  RebalanceInputs in =
      rebalance_inputs(rows, loads.by_node, loads.direction, ledger.bound_pods(),
                       learned.receive.value_or(collector.kube.pod_receive_rate),
                       learned.transmit.value_or(collector.kube.pod_transmit_rate));
  memory_.mark_resting(in.pods, now_ms);
  memory_.mark_cooling(in.nodes);
  const auto chosen = model::nominate_evictions(in.nodes, in.pods, settings_, now_ms);
  memory_.remember(chosen, in.pods);
  nominees_.clear();
  for (const auto& nominee : chosen) nominees_.insert(nominee.pod);
}

}  // namespace netscore::sim
