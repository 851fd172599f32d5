#pragma once

#include <array>
#include <charconv>
#include <cstring>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"

// Self-checking snapshots for the stress and crash tests: every figure of every entry is derived
// from the publish id, so a reader can tell a complete snapshot from a torn one.
namespace netscore::testing {

inline constexpr std::uint32_t kMaxPatternNodes = 96;

// The node count changes every `names_every` publishes: every publish by default (each one rewrites
// the whole copy), or slowly enough that most publishes find their copy holding the same names
// (the writer then rewrites the figures alone).
inline std::uint32_t pattern_nodes(std::uint64_t publish_id, std::uint32_t base = 32,
                                   std::uint32_t names_every = 1) {
  return base + static_cast<std::uint32_t>((publish_id / names_every) % 64);
}

inline std::string pattern_name(std::uint32_t i) {
  return "node-" + std::to_string(i);
}

// Every word of the figures derived from (publish_id, i, word): a figure added to
// shm::NodeFigures is covered without editing this. The flags word keeps its kEntry* bits (so the
// writer's counts see a mix of valid and invalid entries) and the seed in its unused high bits.
inline shm::NodeFigures pattern_figures(std::uint64_t publish_id, std::uint32_t i) {
  std::array<std::uint64_t, shm::kWordsOf<shm::NodeFigures>> words{};
  for (std::size_t k = 0; k < words.size(); ++k) {
    std::uint64_t x = (publish_id * 0x9E3779B97F4A7C15ULL) ^ (std::uint64_t{i} << 32) ^ k;
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ULL;
    words[k] = x ^ (x >> 27);
  }
  shm::NodeFigures figures;
  std::memcpy(static_cast<void*>(&figures), words.data(), sizeof(figures));
  figures.flags = static_cast<std::uint32_t>(((publish_id + i) % 256) | ((publish_id + i) << 16));
  return figures;
}

inline TableEntry pattern_entry(std::uint64_t publish_id, std::uint32_t i) {
  return {pattern_figures(publish_id, i), pattern_name(i)};
}

inline std::vector<TableEntry> pattern_snapshot(std::uint64_t publish_id, std::uint32_t base = 32,
                                                std::uint32_t names_every = 1) {
  std::vector<TableEntry> entries;
  for (std::uint32_t i = 0; i < pattern_nodes(publish_id, base, names_every); ++i)
    entries.push_back(pattern_entry(publish_id, i));
  return entries;
}

// Compared as bytes: figures are arbitrary words, and a NaN never equals itself.
inline bool figures_match(std::uint64_t publish_id, std::uint32_t i,
                          const shm::NodeFigures& figures) {
  const shm::NodeFigures want = pattern_figures(publish_id, i);
  return std::memcmp(&figures, &want, sizeof(want)) == 0;
}

inline bool matches_pattern(std::uint64_t publish_id, std::uint32_t i, const NodeScore& s) {
  return s.found && figures_match(publish_id, i, s);
}

// A whole snapshot read with read_all: right count, right names in order, every field derived
// from the same publish id as the snapshot's own metadata.
inline bool snapshot_matches_pattern(const shm::SnapshotMeta& meta,
                                     const std::vector<TableRow>& rows, std::uint32_t base = 32,
                                     std::uint32_t names_every = 1) {
  if (rows.size() != pattern_nodes(meta.publish_id, base, names_every) ||
      meta.node_count != rows.size())
    return false;
  for (std::uint32_t i = 0; i < rows.size(); ++i) {
    if (rows[i].name != pattern_name(i) || !matches_pattern(meta.publish_id, i, rows[i].score))
      return false;
  }
  return true;
}

}  // namespace netscore::testing
