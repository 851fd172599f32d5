#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"

// GET /explain?node=NAME: the node's recent pods as the collector recorded them in the table's
// ring of placements (each pod's latest record: what priced it in each direction, and at what
// rate), beside the node's correction in the snapshot. Reads the table lock-free; allocates
// freely (not the scheduler's path).
namespace netscore::extender {

struct NodePlacements {
  std::string node;
  ReadStatus snapshot = ReadStatus::empty;
  NodeScore figures{};  // found = false: the snapshot has no such node
  shm::SnapshotMeta meta{};
  std::vector<shm::PlacementRecord> pods;  // newest first, each pod's latest record, at most limit
  std::size_t more = 0;                    // pods left out by the limit
  std::int64_t now_wall_ms = 0;
};

NodePlacements node_placements(const ScoreTableReader& table, std::string_view node,
                               std::size_t limit, std::int64_t now_wall_ms);

std::string render_node_placements_json(const NodePlacements& view);
std::string render_node_placements_text(const NodePlacements& view);

}  // namespace netscore::extender
