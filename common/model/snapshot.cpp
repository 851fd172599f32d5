#include "common/model/snapshot.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>
#include <unordered_map>

#include "common/model/correction.h"
#include "common/model/figures.h"
#include "common/model/normalise.h"

namespace netscore::model {
namespace {

// Normalises `score_of` into `set` as the plugin's NormalizeScore over the valid entries.
template <class Get, class Set>
void normalise(std::vector<TableEntry>& entries, Get score_of, Set set) {
  std::vector<std::int64_t> scores(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i)
    scores[i] = entries[i].valid() ? score_of(entries[i]) : -1;
  normalise_per_basis(Normalisation::request, std::span<const TableEntry>(entries), scores);
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].valid()) set(entries[i], scores[i]);
}

// A name's first 16 bytes as two big-endian words, zero-padded: comparing keys orders names as
// comparing the strings does, until two names share those bytes.
struct NameKey {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  std::size_t at = 0;
};

std::uint64_t big_endian_word(std::string_view bytes) {
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < 8; ++i)
    word = (word << 8) | (i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0U);
  return word;
}

// Sorts compact keys, then moves each entry once: comparing and swapping whole entries touches
// more memory than the cache holds at thousands of nodes, and makes the sort grow faster than
// the table.
void sort_by_name(std::vector<TableEntry>& entries) {
  std::vector<NameKey> keys;
  keys.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string_view name = entries[i].name;
    keys.push_back(
        {big_endian_word(name), big_endian_word(name.size() > 8 ? name.substr(8) : ""), i});
  }
  std::sort(keys.begin(), keys.end(), [&](const NameKey& a, const NameKey& b) {
    if (a.high != b.high) return a.high < b.high;
    if (a.low != b.low) return a.low < b.low;
    return entries[a.at].name < entries[b.at].name;
  });
  std::vector<TableEntry> sorted;
  sorted.reserve(entries.capacity());
  for (const NameKey& key : keys) sorted.push_back(std::move(entries[key.at]));
  entries = std::move(sorted);
}

std::vector<TableEntry> measured_entries(const std::vector<NodeSample>& samples,
                                         std::int64_t eval_time_ms, std::size_t extra,
                                         const ScoringSettings& scoring) {
  std::vector<TableEntry> entries;
  entries.reserve(samples.size() + extra);
  for (const auto& s : samples)
    entries.push_back({measured_figures(s, eval_time_ms, scoring), s.node});
  return entries;
}

// Adds the watched nodes without a series and marks the watched ones; returns each entry's load.
std::vector<const NodeLoad*> merge_cluster(std::vector<TableEntry>& entries,
                                           const std::vector<NodeLoad>& loads) {
  std::unordered_map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < entries.size(); ++i) by_name.emplace(entries[i].name, i);
  std::vector<const NodeLoad*> load_of(entries.size(), nullptr);
  for (const auto& load : loads) {
    auto it = by_name.find(load.name);
    if (it == by_name.end()) {
      if (!load.in_cluster) continue;  // pods on a node neither watched nor measured
      entries.push_back({{.flags = 0}, load.name});
      load_of.push_back(nullptr);
      it = by_name.emplace(load.name, entries.size() - 1).first;
    }
    TableEntry& e = entries[it->second];
    load_of[it->second] = &load;
    if (load.in_cluster) {
      e.flags |= kEntryInCluster | kEntryLabelsKnown;
      e.rule_mask = load.rule_mask;
    }
  }
  return load_of;
}

}  // namespace

BuiltSnapshot build_snapshot(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                             const std::vector<NodeLoad>* loads, const CorrectionSettings& settings,
                             std::uint64_t rules_hash, std::optional<double> learned_rate_per_pod,
                             const ScoringSettings& scoring) {
  BuiltSnapshot out;
  out.info.eval_time_ms = eval_time_ms;
  out.info.basis = scoring.basis;
  out.info.direction = scoring.direction;
  auto& entries = out.entries;
  entries = measured_entries(samples, eval_time_ms, loads ? loads->size() : 0, scoring);
  if (loads == nullptr) {
    sort_by_name(entries);
    normalise(
        entries, [](const TableEntry& e) { return e.raw_score; },
        [](TableEntry& e, std::int64_t v) {
          e.node_score = v;
          e.corrected_node_score = v;
        });
    return out;
  }

  out.info.flags |= kSnapshotClusterSynced;
  out.info.rules_hash = rules_hash;
  const std::vector<const NodeLoad*> load_of = merge_cluster(entries, *loads);
  if (settings.enabled) {
    const CorrectionOutcome correction =
        apply_correction(entries, load_of, settings, learned_rate_per_pod, scoring);
    out.corrected = correction.corrected;
    out.uncorrected_reason = correction.uncorrected_reason;
    out.placed = correction.placed;
    if (correction.corrected) {
      out.info.flags |= kSnapshotCorrected;
      out.info.pod_price = correction.pod_price;
      out.info.pod_rate = correction.pod_rate;
    }
  }
  sort_by_name(entries);
  normalise(
      entries, [](const TableEntry& e) { return e.raw_score; },
      [](TableEntry& e, std::int64_t v) { e.node_score = v; });
  normalise(
      entries, [](const TableEntry& e) { return e.corrected_raw_score; },
      [](TableEntry& e, std::int64_t v) { e.corrected_node_score = v; });
  return out;
}

}  // namespace netscore::model
