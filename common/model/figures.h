#pragma once

#include <cstdint>

#include "common/model/inputs.h"
#include "common/table/score_table_layout.h"

// A node's measured figures: what the table shows of its sample, and what it is scored on (pure:
// thread-safe).
namespace netscore::model {

// Every flag but the cluster's. On the utilisation basis a node with a link speed (its own, else
// the fallback) and a rate in the direction is scored on rate / speed (kEntryUtilisation); every
// other node on the query's value in the direction, as the Go plugin scores it.
shm::NodeFigures measured_figures(const NodeSample& sample, std::int64_t eval_time_ms,
                                  const ScoringSettings& scoring);

}  // namespace netscore::model
