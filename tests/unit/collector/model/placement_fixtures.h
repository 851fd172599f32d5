#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "collector/kube/cluster_state.h"
#include "collector/model/snapshot.h"
#include "collector/prometheus/response_parser.h"

// What the correction model's tests build their measurements and loads from.
namespace netscore::collector {

inline constexpr std::int64_t kWindowMs = 300000;
inline constexpr std::int64_t kLagMs = 15000;

inline NodeSample sample(const std::string& node, double value) {
  return {.node = node, .value = value};
}

inline NodeSample sample_with_rate(const std::string& node, double value, double rate) {
  return {.node = node, .value = value, .rate = rate, .rate_valid = true};
}

inline NodeLoad load(const std::string& node, std::uint32_t pods, double settled,
                     double pending_plain) {
  return {.name = node,
          .in_cluster = true,
          .pods = pods,
          .placed = pending_plain > 0 ? 1U : 0U,
          .settled = settled,
          .pending_plain = pending_plain};
}

inline const TableEntry& entry(const BuiltSnapshot& s, const std::string& name) {
  for (const auto& e : s.entries) {
    if (e.name == name) return e;
  }
  throw std::runtime_error("no entry " + name);
}

}  // namespace netscore::collector
