#include "collector/placement.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "common/scoring.h"

namespace netscore::collector {
namespace {

// Normalises `score_of` over the valid entries into `out_of`, as the plugin's NormalizeScore.
template <class Get, class Set>
void normalise(std::vector<TableEntry>& entries, Get score_of, Set set) {
  std::vector<std::int64_t> raw;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].valid()) continue;
    raw.push_back(score_of(entries[i]));
    at.push_back(i);
  }
  std::vector<std::int64_t> normalized(raw.size());
  normalize_scores(raw, normalized);
  for (std::size_t i = 0; i < at.size(); ++i) set(entries[at[i]], normalized[i]);
}

}  // namespace

std::vector<NodeRate> node_rates(const std::vector<NodeSample>& samples) {
  std::vector<NodeRate> out;
  out.reserve(samples.size());
  for (const auto& s : samples) {
    if (s.rate_valid) out.push_back({.node = s.node, .rate = s.rate});
  }
  return out;
}

BuiltSnapshot build_snapshot(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                             const std::vector<NodeLoad>* loads, const CorrectionSettings& settings,
                             std::uint64_t rules_hash, std::optional<double> learned_rate_per_pod) {
  BuiltSnapshot out;
  out.info.eval_time_ms = eval_time_ms;
  auto& entries = out.entries;
  entries.reserve(samples.size() + (loads ? loads->size() : 0));
  for (const auto& s : samples) {
    const auto score = plugin_score(s.value);
    entries.push_back({{.raw = s.value,
                        .raw_score = score.value_or(0),
                        .sample_ms = eval_time_ms,
                        .rate = s.rate_valid ? s.rate : 0,
                        .corrected_raw_score = score.value_or(0),
                        .flags = shm::kEntryHasSeries | (s.rate_valid ? shm::kEntryRateValid : 0U) |
                                 (score.has_value() ? shm::kEntryValid : 0U)},
                       s.node});
  }
  if (loads == nullptr) {
    std::sort(entries.begin(), entries.end(),
              [](const TableEntry& a, const TableEntry& b) { return a.name < b.name; });
    normalise(
        entries, [](const TableEntry& e) { return e.raw_score; },
        [](TableEntry& e, std::int64_t v) {
          e.node_score = v;
          e.corrected_node_score = v;
        });
    return out;
  }

  out.info.flags |= shm::kSnapshotClusterSynced;
  out.info.rules_hash = rules_hash;
  std::unordered_map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < entries.size(); ++i) by_name.emplace(entries[i].name, i);
  std::vector<const NodeLoad*> load_of(entries.size(), nullptr);
  for (const auto& load : *loads) {
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
      e.flags |= shm::kEntryInCluster | shm::kEntryLabelsKnown;
      e.rule_mask = load.rule_mask;
    }
  }

  if (settings.enabled) {
    const double window_s = static_cast<double>(settings.window_ms) / 1000.0;
    std::optional<double> factor;
    double sum_raw = 0, sum_rate = 0, sum_settled = 0, raw_with_pods = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const TableEntry& e = entries[i];
      if (!e.valid()) continue;
      if ((e.flags & shm::kEntryRateValid) != 0 && e.rate >= 0) {
        sum_raw += e.raw;
        sum_rate += e.rate;
      }
      if (load_of[i] != nullptr) {
        sum_settled += load_of[i]->settled;
        raw_with_pods += e.raw;
      }
    }
    switch (settings.function) {
      case QueryFunction::rate:
        factor = 1.0;
        break;
      case QueryFunction::increase:
        factor = window_s;
        break;
      case QueryFunction::sum_over_time:
        if (sum_rate > 0) factor = sum_raw / sum_rate;
        break;
    }
    std::optional<double> per_pod;
    if (learned_rate_per_pod && factor) {
      per_pod = *learned_rate_per_pod * *factor;
    } else if (sum_settled >= 1.0) {
      per_pod = raw_with_pods / sum_settled;
    } else if (factor) {
      per_pod = settings.default_rate * *factor;
    }
    bool changing = false;
    for (const auto* load : load_of) {
      changing = changing || (load != nullptr && (load->placed > 0 || load->departed > 0));
    }
    if (!per_pod && changing) {
      out.uncorrected_reason =
          "no traffic per pod measured yet and no rate to convert NETSCORE_POD_RECEIVE_RATE";
    } else {
      out.corrected = true;
      out.info.flags |= shm::kSnapshotCorrected;
      out.info.pod_price = plugin_score(per_pod.value_or(0)).value_or(0);
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeLoad* load = load_of[i];
        if (load == nullptr || (load->placed == 0 && load->departed == 0)) continue;
        TableEntry& e = entries[i];
        const double plain = per_pod.value_or(0);
        const double plain_parts = load->pending_plain - load->departed_plain;
        e.expected =
            factor ? (load->pending_known - load->departed_known) * *factor + plain_parts * plain
                   : (plain_parts + load->pending_known_share - load->departed_known_share) * plain;
        e.placed_pods = load->placed;
        if (load->priced_by_annotation > 0) e.flags |= shm::kEntryPricedByAnnotation;
        if (load->priced_by_workload > 0) e.flags |= shm::kEntryPricedByWorkload;
        if (load->priced_by_annotation + load->priced_by_workload < load->placed + load->departed)
          e.flags |= shm::kEntryPricedByAverage;
        out.placed += load->placed + load->departed;
        if (e.valid()) {
          e.corrected_raw_score =
              plugin_score(std::max(0.0, e.raw + e.expected)).value_or(e.raw_score);
        }
      }
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const TableEntry& a, const TableEntry& b) { return a.name < b.name; });
  normalise(
      entries, [](const TableEntry& e) { return e.raw_score; },
      [](TableEntry& e, std::int64_t v) { e.node_score = v; });
  normalise(
      entries, [](const TableEntry& e) { return e.corrected_raw_score; },
      [](TableEntry& e, std::int64_t v) { e.corrected_node_score = v; });
  return out;
}

}  // namespace netscore::collector
