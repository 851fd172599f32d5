#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/model/inputs.h"
#include "common/model/snapshot.h"

// What the model's tests build their measurements and loads from.
namespace netscore::model {

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

inline NodeLoad watched(const std::string& node) {
  return {.name = node, .in_cluster = true};
}

// One node measured in both directions: receive 256 B/s (raw 5000), transmit 512 B/s (raw 8000).
// Rates and speeds are powers of two so that every utilisation is exact in binary.
inline NodeSample both_directions(double speed, std::uint32_t unusable_speeds = 0) {
  return {.node = "n",
          .value = 5000,
          .rate = 256,
          .rate_valid = true,
          .transmit_value_valid = true,
          .transmit_rate_valid = true,
          .transmit_value = 8000,
          .transmit_rate = 512,
          .speed = speed,
          .unusable_speeds = unusable_speeds};
}

// A node measured on a link of `speed`: its receive rate is its value, its transmit rate its
// transmit value (bytes/s, as the rate function gives them).
inline NodeSample linked(const std::string& node, double rx_rate, double tx_rate, double speed) {
  return {.node = node,
          .value = rx_rate,
          .rate = rx_rate,
          .rate_valid = true,
          .transmit_value_valid = true,
          .transmit_rate_valid = true,
          .transmit_value = tx_rate,
          .transmit_rate = tx_rate,
          .speed = speed};
}

inline ScoringSettings scoring(ScoreBasis basis, Direction direction, double fallback = 0) {
  return {.basis = basis, .direction = direction, .fallback_speed = fallback};
}

inline const TableEntry& entry(const BuiltSnapshot& s, const std::string& name) {
  for (const auto& e : s.entries) {
    if (e.name == name) return e;
  }
  throw std::runtime_error("no entry " + name);
}

}  // namespace netscore::model
