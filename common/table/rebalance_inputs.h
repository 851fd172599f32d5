#pragma once

#include <vector>

#include "common/model/domain.h"
#include "common/model/placement_ledger.h"
#include "common/model/rebalance.h"
#include "common/table/score_table_reader.h"

namespace netscore {

// The nomination's view of the table and the pods: each node's utilisation as the descheduler
// reads it (`utilisation`), its link speed, and each pod's price in the direction its node's
// measured utilisation comes from (with max, the busier one, as the recorded series has it),
// `average_*` where nothing prices it. Nodes without both a reading and a link speed are left
// out, as are their pods.
struct RebalanceInputs {
  std::vector<model::RebalanceNode> nodes{};
  std::vector<model::RebalancePod> pods{};
};
RebalanceInputs rebalance_inputs(const std::vector<TableRow>& rows,
                                 const model::NodeUtilisation& utilisation,
                                 model::Direction direction,
                                 const std::vector<model::BoundPod>& pods, double average_receive,
                                 double average_transmit);

}  // namespace netscore
