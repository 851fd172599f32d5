#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "common/config.h"
#include "collector/kube/cluster_state.h"
#include "common/model/rebalance.h"
#include "common/table/score_table_reader.h"

// The collector's rebalance labeler (collector/kube/rebalance_labeler) in virtual time: a round
// nominates by the labeler's own code on the refresh's reading of the descheduler's utilisation,
// the table just published and the ledger's pods, and the nominees stand until the next round. Not
// emulated: the patches and the watch that shows them.
namespace netscore::sim {

class LabelerModel {
 public:
  LabelerModel(const model::RebalanceSettings& settings, std::int64_t rest_ms)
      : settings_(settings), memory_(rest_ms) {}

  void round(const ScoreTableReader& table, const collector::ClusterState& ledger,
             const Config& collector, const model::LinkLoads& loads, std::int64_t now_ms);
  // Whether the pod ("namespace/name") carries the label now.
  bool nominated(const std::string& pod) const { return nominees_.contains(pod); }

 private:
  model::RebalanceSettings settings_;
  model::NominationMemory memory_;
  std::set<std::string> nominees_{};
};

}  // namespace netscore::sim
