#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

// What the oracle policies know that no scorer does: every node's true traffic with its bound
// pods. Shared by both closed-loop levels.
namespace netscore::sim {

// Extender scores 0..10 from the busier direction's true utilisation of each node's bound
// traffic plus a pod of the given rates (bytes for a node without a speed), normalised as the
// extender's request mode does (range: as its range mode; full_scale > 0: 10 at utilisation 0
// down to 0 at full_scale and beyond, whatever the other nodes carry).
std::vector<std::int64_t> utilisation_scores(std::span<const double> receive,
                                             std::span<const double> transmit,
                                             std::span<const double> speed, double pod_receive,
                                             double pod_transmit, bool range, double full_scale);

// The utilisation oracle's node, shared by both levels: the one whose busier direction has the
// least utilisation once a pod of these true rates joins the node's bound traffic (bytes for a
// node without a speed); the first of equals.
std::size_t least_utilised(std::span<const double> receive, std::span<const double> transmit,
                           std::span<const double> speed, double pod_receive, double pod_transmit);

}  // namespace netscore::sim
