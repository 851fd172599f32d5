#include "extender/scheduler/decision_log.h"

#include <algorithm>

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
    : decisions_(decisions), nodes_(decisions == 0 ? 0 : std::max<std::uint32_t>(1, nodes)) {}

namespace {

// A writer holds a slot for a few hundred nanoseconds; a few tries cover it, after which the
// record counts as overwritten rather than stalling /explain.
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
  for (auto& d : found) {
    d.nodes.reserve(d.header.nodes_recorded);
    NodeDecision node;
    for (std::uint64_t i = 0; i < d.header.nodes_recorded; ++i) {
      if (nodes_[(d.header.node_start + i) % nodes_.size()].try_load(node, kLoadAttempts) &&
          node.ticket == d.header.ticket) {
        d.nodes.push_back(node);
      } else {
        ++d.nodes_overwritten;
      }
    }
  }
  return found;
}

}  // namespace netscore::extender
