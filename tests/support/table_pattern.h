#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"

// Self-checking snapshots for the stress and crash tests: every field of every entry is derived
// from the publish id, so a reader can tell a complete snapshot from a torn one.
namespace netscore::testing {

inline constexpr std::uint32_t kMaxPatternNodes = 96;

inline std::uint32_t pattern_nodes(std::uint64_t publish_id, std::uint32_t base = 32) {
  return base + static_cast<std::uint32_t>(publish_id % 64);
}

inline std::string pattern_name(std::uint32_t i) {
  return "node-" + std::to_string(i);
}

inline TableEntry pattern_entry(std::uint64_t publish_id, std::uint32_t i) {
  const double raw = static_cast<double>(publish_id) * 1e6 + i;
  return {.name = pattern_name(i),
          .raw = raw,
          .raw_score = static_cast<std::int64_t>(raw),
          .node_score = static_cast<std::int64_t>((publish_id * 31 + i) % 101),
          .sample_ms = static_cast<std::int64_t>(publish_id),
          .valid = (publish_id + i) % 5 != 0,
          .flags = static_cast<std::uint32_t>((publish_id + i) % 32) & ~shm::kEntryValid,
          .rate = raw / 300,
          .expected = static_cast<double>(publish_id * 3 + i),
          .corrected_raw_score =
              static_cast<std::int64_t>(raw) + static_cast<std::int64_t>(publish_id * 3 + i),
          .corrected_node_score = static_cast<std::int64_t>((publish_id * 17 + i) % 101),
          .placed_pods = static_cast<std::uint32_t>(publish_id + i),
          .rule_mask = publish_id * 0x9E3779B97F4A7C15ULL + i};
}

inline std::vector<TableEntry> pattern_snapshot(std::uint64_t publish_id, std::uint32_t base = 32) {
  std::vector<TableEntry> entries;
  for (std::uint32_t i = 0; i < pattern_nodes(publish_id, base); ++i)
    entries.push_back(pattern_entry(publish_id, i));
  return entries;
}

inline bool matches_pattern(std::uint64_t publish_id, std::uint32_t i, const NodeScore& s) {
  const TableEntry want = pattern_entry(publish_id, i);
  const std::uint32_t want_flags =
      (want.flags & ~shm::kEntryValid) | (want.valid ? shm::kEntryValid : 0);
  return s.found && s.valid == want.valid && s.flags == want_flags && s.raw == want.raw &&
         s.raw_score == want.raw_score && s.node_score == want.node_score &&
         s.sample_ms == want.sample_ms && s.rate == want.rate && s.expected == want.expected &&
         s.corrected_raw_score == want.corrected_raw_score &&
         s.corrected_node_score == want.corrected_node_score && s.placed_pods == want.placed_pods &&
         s.rule_mask == want.rule_mask;
}

// A whole snapshot read with read_all: right count, right names in order, every field derived
// from the same publish id as the snapshot's own metadata.
inline bool snapshot_matches_pattern(const shm::SnapshotMeta& meta,
                                     const std::vector<TableRow>& rows, std::uint32_t base = 32) {
  if (rows.size() != pattern_nodes(meta.publish_id, base) || meta.node_count != rows.size())
    return false;
  for (std::uint32_t i = 0; i < rows.size(); ++i) {
    if (rows[i].name != pattern_name(i) || !matches_pattern(meta.publish_id, i, rows[i].score))
      return false;
  }
  return true;
}

}  // namespace netscore::testing
