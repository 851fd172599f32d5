#include "bench/closed_loop/virtual_time/node_query.h"

#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "collector/prometheus/query_builder.h"
#include "common/model/query_parts.h"
#include "common/model/rebalance.h"
#include "common/model/scoring.h"

namespace netscore::sim {

std::vector<model::NodeSample> answer_node_query(const QueryConfig& query, const NodeSeries& nodes,
                                                 std::int64_t eval_ms, std::int64_t range_ms) {
  std::vector<model::NodeSample> samples;
  const auto function = static_cast<Function>(query.function);
  const bool score_is_rate = collector::score_is_rate(query);
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

RecordedLoad recorded_load(const QueryConfig& query, RebalanceFigure figure,
                           const NodeSeries& nodes, std::int64_t eval_ms, std::int64_t range_ms) {
  const auto samples = answer_node_query(query, nodes, eval_ms, range_ms);
  std::unordered_map<std::string_view, const model::NodeSample*> by_name;
  for (const auto& sample : samples) by_name[sample.node] = &sample;
  const auto sample_of = [&](std::size_t n) -> const model::NodeSample* {
    const auto found = by_name.find(nodes.names[n]);
    return found == by_name.end() || found->second->speed <= 0 ? nullptr : found->second;
  };
  // Each direction's series as the rules record them: a node measured in it, with a speed.
  model::NodeUtilisation receive, transmit;
  for (std::size_t n = 0; n < nodes.names.size(); ++n) {
    const model::NodeSample* sample = sample_of(n);
    if (sample == nullptr) continue;
    if (sample->rate_valid) receive[nodes.names[n]] = sample->rate / sample->speed;
    if (sample->transmit_rate_valid)
      transmit[nodes.names[n]] = sample->transmit_rate / sample->speed;
  }
  RecordedLoad out{
      .load = std::vector<double>(nodes.names.size(), 0.0),
      .direction = model::figure_direction(figure, query.direction, receive, transmit)};
  for (std::size_t n = 0; n < nodes.names.size(); ++n) {
    const model::NodeSample* sample = sample_of(n);
    if (sample == nullptr) continue;
    const auto rate = model::in_direction(
        out.direction, sample->rate_valid ? std::optional(sample->rate) : std::nullopt,
        sample->transmit_rate_valid ? std::optional(sample->transmit_rate) : std::nullopt);
    out.load[n] = rate.value_or(0) / sample->speed;
  }
  return out;
}

}  // namespace netscore::sim
