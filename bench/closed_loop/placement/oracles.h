#pragma once

#include <cstddef>
#include <span>

// What the oracle policies know that no scorer does: every node's true traffic with its bound
// pods. Shared by both closed-loop levels.
namespace netscore::sim {

// The utilisation oracle's node, shared by both levels: the one whose busier direction has the
// least utilisation once a pod of these true rates joins the node's bound traffic (bytes for a
// node without a speed); the first of equals.
std::size_t least_utilised(std::span<const double> receive, std::span<const double> transmit,
                           std::span<const double> speed, double pod_receive, double pod_transmit);

}  // namespace netscore::sim
