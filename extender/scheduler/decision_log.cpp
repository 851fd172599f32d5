#include "extender/scheduler/decision_log.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace netscore::extender {

std::string_view to_string(FilterVerdict v) {
  switch (v) {
    case FilterVerdict::none:
      return "none";
    case FilterVerdict::passed:
      return "passed";
    case FilterVerdict::failed:
      return "failed";
  }
  return "none";
}

DecisionLog::DecisionLog(std::uint32_t decisions, std::uint32_t nodes)
    : decisions_(decisions),
      blocks_(decisions == 0 ? 0
                             : std::max<std::size_t>(1, (std::size_t{nodes} + kNodesPerBlock - 1) /
                                                            kNodesPerBlock)) {}

namespace {

// A writer holds a slot for a few hundred nanoseconds; a few tries cover it, after which the
// slot's records count as overwritten rather than stalling /explain.
constexpr unsigned kLoadAttempts = 8;

}  // namespace

std::vector<Decision> DecisionLog::find(std::string_view pod_namespace, std::string_view pod_name,
                                        std::string_view uid, std::size_t limit) const {
  std::vector<Decision> found;
  DecisionHeader header;
  for (const auto& slot : decisions_) {
    if (!slot.try_load(header, kLoadAttempts)) continue;
    const bool match = !uid.empty() ? !header.pod_uid.truncated() && header.pod_uid.view() == uid
                                    : !header.pod_name.truncated() &&
                                          header.pod_namespace.view() == pod_namespace &&
                                          header.pod_name.view() == pod_name;
    if (match) found.push_back({header, {}, 0});
  }
  std::sort(found.begin(), found.end(),
            [](const Decision& a, const Decision& b) { return a.header.ticket > b.header.ticket; });
  if (found.size() > limit) found.resize(limit);
  for (auto& d : found) load_nodes(d);
  return found;
}

void DecisionLog::load_nodes(Decision& d) const {
  d.nodes.reserve(d.header.nodes_recorded);
  NodeBlock block;
  for (std::size_t first = 0, b = 0; first < d.header.nodes_recorded;
       first += kNodesPerBlock, ++b) {
    const std::size_t filled =
        std::min<std::size_t>(kNodesPerBlock, d.header.nodes_recorded - first);
    if (blocks_[(d.header.node_start + b) % blocks_.size()].try_load(block, kLoadAttempts) &&
        block.ticket == d.header.ticket) {
      d.nodes.insert(d.nodes.end(), block.nodes, block.nodes + filled);
    } else {
      d.nodes_overwritten += static_cast<std::uint32_t>(filled);
    }
  }
}

}  // namespace netscore::extender
