#include "extender/views/node_placements.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <unordered_set>

#include <spdlog/fmt/fmt.h>

#include "extender/views/json_writer.h"

namespace netscore::extender {
namespace {

std::string_view node_of(const shm::PlacementRecord& r) {
  return {r.node, r.node_len};
}

// A name cut to its stored prefix ends with an ellipsis so nobody takes it for the real name.
std::string pod_of(const shm::PlacementRecord& r) {
  std::string name(r.pod, std::min<std::size_t>(r.pod_len, shm::kPodNameBytes));
  if (r.pod_len > shm::kPodNameBytes) name += "\xE2\x80\xA6";
  return name;
}

std::string_view source_name(std::uint32_t priced_by) {
  for (const auto& [flag, name] : shm::kPricedBy) {
    if (flag == priced_by) return name;
  }
  return "unknown";
}

void write_price(JsonWriter& j, std::string_view key, std::uint32_t priced_by, double rate) {
  j.key(key);
  j.begin_object();
  j.fields({{"priced_by", source_name(priced_by)},
            {"rate", rate >= 0 ? JsonScalar(rate) : JsonScalar(nullptr)}});
  j.end_object();
}

std::string price_text(std::uint32_t priced_by, double rate) {
  return fmt::format("{} {}", rate >= 0 ? fmt::format("{:.0f}", rate) : std::string("-"),
                     source_name(priced_by));
}

}  // namespace

NodePlacements node_placements(const ScoreTableReader& table, std::string_view node,
                               std::size_t limit, std::int64_t now_wall_ms) {
  NodePlacements out;
  out.node = std::string(node);
  out.now_wall_ms = now_wall_ms;
  const std::string_view names[] = {node};
  out.snapshot = table.lookup(names, std::span(&out.figures, 1), out.meta);
  const std::uint64_t hash = shm::name_hash(node);
  const std::vector<shm::PlacementRecord> records = table.read_placements();
  std::unordered_set<std::string> seen;
  for (auto r = records.rbegin(); r != records.rend(); ++r) {
    if (r->node_hash != hash || node_of(*r) != node) continue;
    if (!seen.insert(pod_of(*r)).second) continue;  // an older record of a pod listed
    if (out.pods.size() < limit) {
      out.pods.push_back(*r);
    } else {
      ++out.more;
    }
  }
  return out;
}

std::string render_node_placements_json(const NodePlacements& v) {
  const NodeScore& s = v.figures;
  JsonWriter j;
  j.begin_object();
  j.fields({{"node", v.node}, {"found", s.found}});
  j.key("correction");
  j.begin_object();
  j.fields({{"expected", s.expected},
            {"placed_pods", s.placed_pods},
            {"raw_score", s.raw_score},
            {"corrected_raw_score", s.corrected_raw_score},
            {"pod_rate", v.meta.pod_rate}});
  write_priced_by(j, "priced_by", s.flags);
  j.end_object();
  j.key("recent_pods");
  j.begin_array();
  for (const shm::PlacementRecord& r : v.pods) {
    j.begin_object();
    j.fields({{"pod", pod_of(r)},
              {"placed", iso_time(r.placed_wall_ms)},
              {"age_seconds", static_cast<double>(v.now_wall_ms - r.placed_wall_ms) * 1e-3},
              {"recorded", iso_time(r.written_wall_ms)}});
    write_price(j, "receive", r.receive_priced_by, r.receive_rate);
    write_price(j, "transmit", r.transmit_priced_by, r.transmit_rate);
    j.end_object();
  }
  j.end_array();
  j.fields({{"more_pods", v.more}});
  j.end_object();
  return j.str();
}

std::string render_node_placements_text(const NodePlacements& v) {
  const NodeScore& s = v.figures;
  std::string out;
  auto it = std::back_inserter(out);
  if (!s.found) {
    fmt::format_to(it, "node {}: not in the table\n", v.node);
  } else {
    fmt::format_to(it, "node {}: expected {:.0f} over {} placed pod(s), score {} -> {}\n", v.node,
                   s.expected, s.placed_pods, s.raw_score, s.corrected_raw_score);
  }
  fmt::format_to(it, "{} recent pod(s), newest first; a pod without a rate costs {:.0f} B/s\n",
                 v.pods.size(), v.meta.pod_rate);
  std::size_t width = 3;
  for (const auto& r : v.pods) width = std::max(width, pod_of(r).size());
  fmt::format_to(it, "  {:<{}}  {:>8}  {:<28}  {}\n", "POD", width, "AGE_S", "RECEIVE_B/S",
                 "TRANSMIT_B/S");
  for (const auto& r : v.pods) {
    fmt::format_to(it, "  {:<{}}  {:>8.1f}  {:<28}  {}\n", pod_of(r), width,
                   static_cast<double>(v.now_wall_ms - r.placed_wall_ms) * 1e-3,
                   price_text(r.receive_priced_by, r.receive_rate),
                   price_text(r.transmit_priced_by, r.transmit_rate));
  }
  if (v.more > 0) fmt::format_to(it, "  ({} older pod(s) left out)\n", v.more);
  return out;
}

}  // namespace netscore::extender
