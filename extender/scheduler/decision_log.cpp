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

template <class T>
bool DecisionLog::load(const Slot<T>& slot, T& out) noexcept {
  // A writer holds a slot for a few hundred nanoseconds; a few tries cover it, after which the
  // record counts as overwritten rather than stalling /explain.
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::uint64_t before = slot.seq.load(std::memory_order_acquire);
    if (before == 0) return false;
    if ((before & 1) != 0) continue;
    std::array<std::uint64_t, Slot<T>::kWords> buffer{};
    for (std::size_t k = 0; k < buffer.size(); ++k)
      buffer[k] = slot.words[k].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.seq.load(std::memory_order_relaxed) != before) continue;
    std::memcpy(static_cast<void*>(&out), buffer.data(), sizeof(T));
    return true;
  }
  return false;
}

std::vector<Decision> DecisionLog::find(std::string_view pod_namespace, std::string_view pod_name,
                                        std::string_view uid, std::size_t limit) const {
  std::vector<Decision> found;
  DecisionHeader header;
  for (const auto& slot : decisions_) {
    if (!load(slot, header)) continue;
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
      if (load(nodes_[(d.header.node_start + i) % nodes_.size()], node) &&
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
