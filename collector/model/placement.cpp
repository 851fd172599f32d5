#include "collector/model/placement.h"

#include <algorithm>

#include "common/scoring.h"

namespace netscore::collector {

std::vector<NodeRate> node_rates(const std::vector<NodeSample>& samples) {
  std::vector<NodeRate> out;
  out.reserve(samples.size());
  for (const auto& s : samples) {
    if (s.rate_valid) out.push_back({.node = s.node, .rate = s.rate});
  }
  return out;
}

CorrectionOutcome apply_correction(std::vector<TableEntry>& entries,
                                   const std::vector<const NodeLoad*>& load_of,
                                   const CorrectionSettings& settings,
                                   std::optional<double> learned_rate_per_pod) {
  CorrectionOutcome out;
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
    return out;
  }
  out.corrected = true;
  out.pod_price = plugin_score(per_pod.value_or(0)).value_or(0);
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
      e.corrected_raw_score = plugin_score(std::max(0.0, e.raw + e.expected)).value_or(e.raw_score);
    }
  }
  return out;
}

}  // namespace netscore::collector
