#include "common/table/rebalance_inputs.h"

#include <string_view>
#include <unordered_map>

#include "common/model/figures.h"

namespace netscore {

RebalanceInputs rebalance_inputs(const std::vector<TableRow>& rows,
                                 const model::NodeUtilisation& utilisation,
                                 model::Direction direction,
                                 const std::vector<model::BoundPod>& pods, double average_receive,
                                 double average_transmit) {
  RebalanceInputs in;
  std::unordered_map<std::string_view, bool> transmit_of;  // node -> its utilisation is transmit
  for (const auto& row : rows) {
    const auto measured = model::utilisation_in(row.score, direction);
    const auto speed = model::link_speed(row.score);
    const auto read = utilisation.find(row.name);
    if (!measured || !speed || read == utilisation.end()) continue;
    const auto receive = model::receive_utilisation(row.score);
    transmit_of[row.name] =
        direction == model::Direction::transmit ||
        (direction == model::Direction::max && (!receive || *measured > *receive));
    in.nodes.push_back({.name = row.name, .utilisation = read->second, .speed = *speed});
  }
  for (const auto& pod : pods) {
    const auto node = transmit_of.find(pod.node);
    if (node == transmit_of.end()) continue;
    const model::PodPrice& price = node->second ? pod.transmit : pod.receive;
    const double average = node->second ? average_transmit : average_receive;
    in.pods.push_back({.name = pod.name,
                       .node = pod.node,
                       .workload = pod.workload,
                       .workload_pods = pod.workload_pods,
                       .placed_ms = pod.placed_ms,
                       .price = price.rate >= 0 ? price.rate : average});
  }
  return in;
}

}  // namespace netscore
