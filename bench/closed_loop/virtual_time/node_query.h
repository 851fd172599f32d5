#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/closed_loop/virtual_time/promql.h"
#include "common/config.h"
#include "common/model/domain.h"
#include "common/model/inputs.h"

// What the collector's batch query (collector/prometheus/query_builder) answers for each node in
// virtual time, as the response parser assembles it: a node without a score series has no sample;
// the transmit value is asked as the model says, and a rate score is also the rate (and the
// transmit rate the transmit value). The speed gauge is constant and scraped with the counters, so
// it is there once they are.
namespace netscore::sim {

struct NodeSeries {
  std::span<const std::string> names;
  std::span<const Series> receive, transmit;
  std::span<const double> speed;  // bytes/s; 0: no speed series
};

std::vector<model::NodeSample> answer_node_query(const QueryConfig& query, const NodeSeries& nodes,
                                                 std::int64_t eval_ms, std::int64_t range_ms);

// The load the descheduler's figure reads and the collector nominates by, for each of
// `nodes.names` at eval_ms, as --print-rules' rules record it: the rate in model::figure_direction
// (max: the busier per node for the absolute figure; the cluster's main direction for the
// relative) over the link speed, above 1 where the trace's traffic is; 0 for a node without an
// answer or a speed.
struct RecordedLoad {
  std::vector<double> load;
  model::Direction direction;
};
RecordedLoad recorded_load(const QueryConfig& query, RebalanceFigure figure,
                           const NodeSeries& nodes, std::int64_t eval_ms, std::int64_t range_ms);

}  // namespace netscore::sim
