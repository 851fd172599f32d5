#pragma once

#include <cstdint>
#include <optional>

#include "common/model/inputs.h"
#include "common/model/scoring.h"
#include "common/model/table_records.h"

// A node's measured figures: what the table shows of its sample, what it is scored on, and its
// link figures read back the one way the collector scores them and the extender's filter and views
// show them (pure: thread-safe).
namespace netscore::model {

// Every flag but the cluster's. On the utilisation basis a node with a link speed (its own, else
// the fallback) and a rate in the direction is scored on rate / speed (kEntryUtilisation); every
// other node on the query's value in the direction, as the Go plugin scores it.
NodeFigures measured_figures(const NodeSample& sample, std::int64_t eval_time_ms,
                             const ScoringSettings& scoring);

inline bool scored_on_utilisation(const NodeFigures& f) noexcept {
  return (f.flags & kEntryUtilisation) != 0;
}

// Link speed in bytes/s; nullopt when neither the node's speed series nor the fallback gave one.
inline std::optional<double> link_speed(const NodeFigures& f) noexcept {
  if ((f.flags & (kEntrySpeedMeasured | kEntrySpeedFallback)) == 0 || !(f.speed > 0))
    return std::nullopt;
  return f.speed;
}

// rate / speed as one double division, the value Prometheus gives for `rate / speed`.
inline std::optional<double> receive_utilisation(const NodeFigures& f) noexcept {
  const auto speed = link_speed(f);
  if (!speed || (f.flags & kEntryRateValid) == 0) return std::nullopt;
  return f.rate / *speed;
}

inline std::optional<double> transmit_utilisation(const NodeFigures& f) noexcept {
  const auto speed = link_speed(f);
  if (!speed || (f.flags & kEntryTransmitRateValid) == 0) return std::nullopt;
  return f.transmit_rate / *speed;
}

// The utilisation in `direction`; busier: the larger of the two, or the one known. A
// utilisation-scored entry's `scored` is this in the snapshot's direction.
inline std::optional<double> utilisation_in(const NodeFigures& f, Direction direction) noexcept {
  return in_direction(direction, receive_utilisation(f), transmit_utilisation(f));
}

}  // namespace netscore::model
