#include "bench/closed_loop/virtual_time/node_query.h"

#include <cmath>
#include <optional>

#include "common/model/query_parts.h"

namespace netscore::sim {

std::vector<model::NodeSample> answer_node_query(const QueryConfig& query, const NodeSeries& nodes,
                                                 std::int64_t eval_ms, std::int64_t range_ms) {
  std::vector<model::NodeSample> samples;
  const auto function = static_cast<Function>(query.function);
  const bool score_is_rate =
      query.mode != QueryMode::custom && query.function == QueryFunction::rate;
  const bool scores_transmit = model::asks_transmit_value(query.direction, query.function);
  const auto known = [](std::optional<double> v) { return v && std::isfinite(*v); };
  for (std::size_t n = 0; n < nodes.names.size(); ++n) {
    const auto value = evaluate(function, nodes.receive[n], eval_ms, range_ms);
    if (!value) continue;
    const auto rate =
        score_is_rate ? value : evaluate(Function::rate, nodes.receive[n], eval_ms, range_ms);
    const auto transmit_rate = evaluate(Function::rate, nodes.transmit[n], eval_ms, range_ms);
    const auto transmit_value = score_is_rate ? transmit_rate
                                : scores_transmit
                                    ? evaluate(function, nodes.transmit[n], eval_ms, range_ms)
                                    : std::nullopt;
    samples.push_back({.node = nodes.names[n],
                       .value = *value,
                       .rate = rate.value_or(0),
                       .rate_valid = known(rate),
                       .transmit_value_valid = known(transmit_value),
                       .transmit_rate_valid = known(transmit_rate),
                       .transmit_value = transmit_value.value_or(0),
                       .transmit_rate = transmit_rate.value_or(0),
                       .speed = nodes.speed[n] > 0 ? nodes.speed[n] : 0});
  }
  return samples;
}

}  // namespace netscore::sim
