#pragma once

#include <optional>
#include <string_view>

#include "common/config.h"
#include "common/scoring.h"
#include "common/table/score_table_layout.h"

// A node's link figures read back from the table the one way the filter and the views share:
// what its speed is and where it came from, and how busy its link is. Pure, allocation-free.
namespace netscore::extender {

// Link speed in bytes/s; nullopt when neither the node's speed series nor the fallback gave one.
inline std::optional<double> link_speed(const shm::NodeFigures& f) noexcept {
  if ((f.flags & (shm::kEntrySpeedMeasured | shm::kEntrySpeedFallback)) == 0 || !(f.speed > 0))
    return std::nullopt;
  return f.speed;
}

// "measured", "fallback" or "none".
inline std::string_view speed_source(const shm::NodeFigures& f) noexcept {
  if (!link_speed(f)) return "none";
  return (f.flags & shm::kEntrySpeedMeasured) != 0 ? "measured" : "fallback";
}

// rate / speed as one double division, the value Prometheus gives for `rate / speed`.
inline std::optional<double> receive_utilisation(const shm::NodeFigures& f) noexcept {
  const auto speed = link_speed(f);
  if (!speed || (f.flags & shm::kEntryRateValid) == 0) return std::nullopt;
  return f.rate / *speed;
}

inline std::optional<double> transmit_utilisation(const shm::NodeFigures& f) noexcept {
  const auto speed = link_speed(f);
  if (!speed || (f.flags & shm::kEntryTransmitRateValid) == 0) return std::nullopt;
  return f.transmit_rate / *speed;
}

// The utilisation in `direction`; busier: the larger of the two, or the one known (as the
// collector scores it).
inline std::optional<double> utilisation_in(const shm::NodeFigures& f,
                                            Direction direction) noexcept {
  return in_direction(direction, receive_utilisation(f), transmit_utilisation(f));
}

inline bool scored_on_utilisation(const shm::NodeFigures& f) noexcept {
  return (f.flags & shm::kEntryUtilisation) != 0;
}

inline ScoreBasis snapshot_basis(const shm::SnapshotMeta& meta) noexcept {
  return static_cast<ScoreBasis>(meta.basis);
}

inline Direction snapshot_direction(const shm::SnapshotMeta& meta) noexcept {
  return static_cast<Direction>(meta.direction);
}

}  // namespace netscore::extender
