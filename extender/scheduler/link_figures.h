#pragma once

#include <optional>
#include <string_view>

#include "common/config.h"
#include "common/model/figures.h"
#include "common/table/score_table_layout.h"

// What the filter and the views read back of a node's link and of the snapshot beyond
// model/figures (its speed and utilisation): where the speed came from, and the snapshot's basis
// and direction. Pure, allocation-free.
namespace netscore::extender {

// "measured", "fallback" or "none".
inline std::string_view speed_source(const shm::NodeFigures& f) noexcept {
  if (!model::link_speed(f)) return "none";
  return (f.flags & shm::kEntrySpeedMeasured) != 0 ? "measured" : "fallback";
}

inline ScoreBasis snapshot_basis(const shm::SnapshotMeta& meta) noexcept {
  return static_cast<ScoreBasis>(meta.basis);
}

inline Direction snapshot_direction(const shm::SnapshotMeta& meta) noexcept {
  return static_cast<Direction>(meta.direction);
}

}  // namespace netscore::extender
