#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/model/placement_ledger.h"
#include "tests/unit/common/model/model_fixtures.h"

// What the placement ledger's tests place their pods with and read their loads from.
namespace netscore::model {

inline constexpr std::int64_t kLongAgo = 1'000'000;  // placed long before `now`: settled
inline constexpr std::int64_t kNow = 10'000'000;

inline LoadWindow at(std::int64_t now_ms) {
  return {.now_ms = now_ms, .lag_ms = kLagMs, .window_ms = kWindowMs};
}

inline PodFacts pod(const std::string& uid, const std::string& node,
                    const std::string& workload = {}) {
  return {.uid = uid, .node = node, .workload = workload};
}

inline const NodeLoad& load_of(const std::vector<NodeLoad>& loads, const std::string& node) {
  for (const auto& l : loads) {
    if (l.name == node) return l;
  }
  throw std::runtime_error("no load for " + node);
}

}  // namespace netscore::model
