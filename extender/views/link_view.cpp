#include "extender/views/link_view.h"

#include <string>
#include <string_view>

#include "common/config.h"
#include "common/model/figures.h"
#include "extender/scheduler/link_figures.h"

namespace netscore::extender {
namespace {

constexpr MetricInfo kScoring{
    "netscore_extender_table_scoring_info",
    "1, labelled with the basis and direction the snapshot being served was scored on.",
    MetricType::gauge};
constexpr MetricInfo kNodesByBasis{
    "netscore_extender_table_nodes_by_basis",
    "Valid nodes in the snapshot scored on bytes (raw) or on link utilisation.", MetricType::gauge};
constexpr MetricInfo kNodesBySpeedSource{
    "netscore_extender_table_nodes_by_speed_source",
    "Nodes in the snapshot whose link speed was measured, is the configured fallback, or is "
    "unknown (none).",
    MetricType::gauge};
constexpr MetricInfo kNodesSpeedUnusable{
    "netscore_extender_table_nodes_speed_unusable",
    "Nodes in the snapshot where some device reported a link speed that is not positive.",
    MetricType::gauge};
constexpr MetricInfo kMaxUtilisation{
    "netscore_extender_table_max_utilisation",
    "Highest link utilisation (rate / speed) of any node in the snapshot, per direction.",
    MetricType::gauge};

}  // namespace

LinkSummary summarise_links(const std::vector<TableRow>& rows) {
  LinkSummary links;
  const auto raise = [](std::optional<double>& max, std::optional<double> value) {
    if (value && (!max || *value > *max)) max = value;
  };
  for (const auto& row : rows) {
    const NodeScore& s = row.score;
    if (s.valid()) ++(model::scored_on_utilisation(s) ? links.utilisation : links.raw);
    const std::string_view source = speed_source(s);
    ++(source == "measured" ? links.measured : source == "fallback" ? links.fallback : links.none);
    if ((s.flags & shm::kEntrySpeedUnusable) != 0) ++links.unusable;
    raise(links.max_receive_utilisation, model::receive_utilisation(s));
    raise(links.max_transmit_utilisation, model::transmit_utilisation(s));
  }
  return links;
}

void write_link_summary(JsonWriter& j, const shm::SnapshotMeta& meta, const LinkSummary& links) {
  j.fields({{"basis", score_basis_name(snapshot_basis(meta))},
            {"direction", direction_name(snapshot_direction(meta))}});
  j.key("nodes_by_basis");
  j.begin_object();
  j.fields({{"raw", links.raw}, {"utilisation", links.utilisation}});
  j.end_object();
  j.key("nodes_by_speed_source");
  j.begin_object();
  j.fields({{"measured", links.measured}, {"fallback", links.fallback}, {"none", links.none}});
  j.end_object();
  j.fields({{"speed_unusable_nodes", links.unusable},
            {"max_receive_utilisation", or_null(links.max_receive_utilisation)},
            {"max_transmit_utilisation", or_null(links.max_transmit_utilisation)}});
}

void collect_link_metrics(const shm::SnapshotMeta& meta, const std::vector<TableRow>& rows,
                          MetricFamilies& out) {
  const LinkSummary links = summarise_links(rows);
  out.add(kScoring).samples.push_back(
      {{},
       {{"basis", std::string(score_basis_name(snapshot_basis(meta)))},
        {"direction", std::string(direction_name(snapshot_direction(meta)))}},
       1.0});
  MetricFamily& by_basis = out.add(kNodesByBasis);
  by_basis.samples.push_back({{}, {{"basis", "raw"}}, std::uint64_t{links.raw}});
  by_basis.samples.push_back({{}, {{"basis", "utilisation"}}, std::uint64_t{links.utilisation}});
  MetricFamily& by_source = out.add(kNodesBySpeedSource);
  by_source.samples.push_back({{}, {{"source", "measured"}}, std::uint64_t{links.measured}});
  by_source.samples.push_back({{}, {{"source", "fallback"}}, std::uint64_t{links.fallback}});
  by_source.samples.push_back({{}, {{"source", "none"}}, std::uint64_t{links.none}});
  out.add(kNodesSpeedUnusable, std::uint64_t{links.unusable});
  MetricFamily& max_utilisation = out.add(kMaxUtilisation);
  if (links.max_receive_utilisation) {
    max_utilisation.samples.push_back(
        {{}, {{"direction", "receive"}}, *links.max_receive_utilisation});
  }
  if (links.max_transmit_utilisation) {
    max_utilisation.samples.push_back(
        {{}, {{"direction", "transmit"}}, *links.max_transmit_utilisation});
  }
}

}  // namespace netscore::extender
