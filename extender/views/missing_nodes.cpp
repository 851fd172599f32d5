#include "extender/views/missing_nodes.h"

#include "common/table/score_table_layout.h"

namespace netscore::extender {
namespace {

constexpr MetricInfo kMissingNodes{"netscore_extender_missing_nodes",
                                   "Distinct requested nodes the table lacked (bounded set).",
                                   MetricType::gauge};

}  // namespace

void MissingNodes::add(std::string_view name) {
  if (name.empty() || name.size() > shm::kMaxNameBytes) return;
  {
    std::lock_guard lock(mutex_);
    if (names_.contains(name)) return;
    if (names_.size() < kNames) {
      names_.emplace(name);
      return;
    }
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::string> MissingNodes::names() const {
  std::lock_guard lock(mutex_);
  return {names_.begin(), names_.end()};
}

void MissingNodes::collect(MetricFamilies& out) const {
  out.add(kMissingNodes, static_cast<double>(names().size() + dropped()));
}

}  // namespace netscore::extender
