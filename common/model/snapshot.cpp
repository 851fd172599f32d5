#include "common/model/snapshot.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The entries' indices in name order, by compact keys: comparing whole names, or swapping whole
// entries, touches more memory than the cache holds at thousands of nodes, and makes the sort
// grow faster than the table.
std::vector<std::size_t> name_order(const std::vector<TableEntry>& entries) {
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
  std::vector<std::size_t> order;
  order.reserve(keys.size());
  for (const NameKey& key : keys) order.push_back(key.at);
  return order;
}

// Whether `order` lists every entry once, in strictly ascending name order: strictly ascending
// names are distinct, so as many indices in range are each entry once.
bool orders_by_name(const std::vector<TableEntry>& entries, std::span<const std::size_t> order) {
  if (order.size() != entries.size()) return false;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] >= entries.size()) return false;
    if (i > 0 && !(entries[order[i - 1]].name < entries[order[i]].name)) return false;
  }
  return true;
}

// Moves each entry once, into `order` (name_order of these entries), through `spare`: moved
// strings trade buffers, so a caller that keeps both vectors sorts again without allocating.
void sort_by_name(std::vector<TableEntry>& entries, const std::vector<std::size_t>& order,
                  std::vector<TableEntry>& spare) {
  bool in_order = true;
  for (std::size_t i = 0; in_order && i < order.size(); ++i) in_order = order[i] == i;
  if (in_order) return;
  spare.resize(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) spare[i] = std::move(entries[order[i]]);
  entries.swap(spare);
}

// Adds the watched nodes without a series and marks the watched ones; returns each entry's load.
// One load per node; `entries` are in name order. Runs on every publish a binding causes: the
// loads, which the cluster state lists in name order, are walked along the measured names instead
// of hashing every name into a map (a load out of order is searched for from the start).
std::vector<const NodeLoad*> merge_cluster(std::vector<TableEntry>& entries,
                                           const std::vector<NodeLoad>& loads) {
  const std::size_t measured = entries.size();
  const auto before = [&](const TableEntry& e, const std::string& name) { return e.name < name; };
  std::vector<const NodeLoad*> load_of(entries.size(), nullptr);
  std::size_t next = 0;
  for (const auto& load : loads) {
    if (next > 0 && !before(entries[next - 1], load.name)) {
      next = static_cast<std::size_t>(
          std::lower_bound(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(measured),
                           load.name, before) -
          entries.begin());
    }
    // One three-way comparison per step: in the usual case the next measured name is the load's.
    int order = -1;
    while (next < measured && (order = entries[next].name.compare(load.name)) < 0) ++next;
    std::size_t at = 0;
    if (next < measured && order == 0) {
      at = next;
    } else {
      if (!load.in_cluster) continue;  // pods on a node neither watched nor measured
      entries.push_back({{.flags = 0}, load.name});
      load_of.push_back(nullptr);
      at = entries.size() - 1;
    }
    TableEntry& e = entries[at];
    load_of[at] = &load;
    if (load.in_cluster) {
      e.flags |= kEntryInCluster | kEntryLabelsKnown;
      e.rule_mask = load.rule_mask;
    }
  }
  return load_of;
}

}  // namespace

MeasuredSnapshot measure_snapshot(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                                  const ScoringSettings& scoring,
                                  std::span<const std::size_t> order_hint) {
  MeasuredSnapshot out;
  out.eval_time_ms = eval_time_ms;
  out.entries.reserve(samples.size());
  for (const auto& s : samples)
    out.entries.push_back({measured_figures(s, eval_time_ms, scoring), s.node});
  if (orders_by_name(out.entries, order_hint))
    out.name_order.assign(order_hint.begin(), order_hint.end());
  else
    out.name_order = name_order(out.entries);
  std::vector<TableEntry> spare;
  sort_by_name(out.entries, out.name_order, spare);
  // The seed's normalisation is the measurement's alone: watched nodes without a series, which
  // a republish adds, are not scored.
  normalise(
      out.entries, [](const TableEntry& e) { return e.raw_score; },
      [](TableEntry& e, std::int64_t v) { e.node_score = v; });
  return out;
}

BuiltSnapshot build_snapshot(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                             const std::vector<NodeLoad>* loads, const CorrectionSettings& settings,
                             std::uint64_t rules_hash, const LearnedRates& learned_per_pod,
                             const ScoringSettings& scoring) {
  return build_snapshot(measure_snapshot(samples, eval_time_ms, scoring), loads, settings,
                        rules_hash, learned_per_pod, scoring);
}

BuiltSnapshot build_snapshot(const MeasuredSnapshot& measured, const std::vector<NodeLoad>* loads,
                             const CorrectionSettings& settings, std::uint64_t rules_hash,
                             const LearnedRates& learned_per_pod, const ScoringSettings& scoring) {
  SnapshotBuffers buffers;
  build_snapshot(measured, loads, settings, rules_hash, learned_per_pod, scoring, buffers);
  return std::move(buffers.built);
}

const BuiltSnapshot& build_snapshot(const MeasuredSnapshot& measured,
                                    const std::vector<NodeLoad>* loads,
                                    const CorrectionSettings& settings, std::uint64_t rules_hash,
                                    const LearnedRates& learned_per_pod,
                                    const ScoringSettings& scoring, SnapshotBuffers& buffers) {
  BuiltSnapshot& out = buffers.built;
  out.info = {};
  out.corrected = false;
  out.uncorrected_reason.clear();
  out.placed = 0;
  out.info.eval_time_ms = measured.eval_time_ms;
  out.info.basis = scoring.basis;
  out.info.direction = scoring.direction;
  auto& entries = out.entries;
  // Assigned element by element: the kept entries' names are reused, not allocated again.
  entries.reserve(measured.entries.size() + (loads ? loads->size() : 0));
  entries.assign(measured.entries.begin(), measured.entries.end());
  if (loads == nullptr) {
    for (TableEntry& e : entries)
      if (e.valid()) e.corrected_node_score = e.node_score;
    return out;
  }

  out.info.flags |= kSnapshotClusterSynced;
  out.info.rules_hash = rules_hash;
  const std::vector<const NodeLoad*> load_of = merge_cluster(entries, *loads);
  if (settings.enabled) {
    const CorrectionOutcome correction =
        apply_correction(entries, load_of, settings, learned_per_pod, scoring);
    out.corrected = correction.corrected;
    out.uncorrected_reason = correction.uncorrected_reason;
    out.placed = correction.placed;
    if (correction.corrected) {
      out.info.flags |= kSnapshotCorrected;
      out.info.pod_price = correction.pod_price;
      out.info.pod_rate = correction.pod_rate;
    }
  }
  // Watched nodes without a series were appended; without them the entries are in name order.
  if (entries.size() != measured.entries.size())
    sort_by_name(entries, name_order(entries), buffers.spare);
  normalise(
      entries, [](const TableEntry& e) { return e.corrected_raw_score; },
      [](TableEntry& e, std::int64_t v) { e.corrected_node_score = v; });
  return out;
}

}  // namespace netscore::model
