#include "extender/views/cluster_view.h"

#include <algorithm>
#include <array>

#include "common/model/prioritize.h"

namespace netscore::extender {
namespace {

constexpr std::array<shm::WatchState, 4> kWatchStates = {
    shm::WatchState::off, shm::WatchState::syncing, shm::WatchState::synced,
    shm::WatchState::failing};

constexpr MetricInfo kWatchState{
    "netscore_extender_kube_watch_state",
    "1 for the collector's Kubernetes API watcher state (off, syncing, synced, failing).",
    MetricType::gauge};
constexpr MetricInfo kWatchErrors{"netscore_extender_kube_watch_errors_total",
                                  "Failed API server requests and malformed events.",
                                  MetricType::counter};
constexpr MetricInfo kWatchRelists{"netscore_extender_kube_watch_relists_total",
                                   "Full lists after a 410 Gone or a lost watch.",
                                   MetricType::counter};
constexpr MetricInfo kWatchNodes{"netscore_extender_kube_watch_nodes",
                                 "Nodes known from the Kubernetes API.", MetricType::gauge};
constexpr MetricInfo kWatchPods{"netscore_extender_kube_watch_pods",
                                "Bound pods the watcher tracks.", MetricType::gauge};
constexpr MetricInfo kWatchPlacements{"netscore_extender_kube_watch_placements",
                                      "Pods currently counted in a placement correction.",
                                      MetricType::gauge};
constexpr MetricInfo kWatchEventAge{
    "netscore_extender_kube_watch_last_event_age_seconds",
    "Time since the watcher's latest event or bookmark (CLOCK_MONOTONIC).", MetricType::gauge};
constexpr MetricInfo kTableCorrected{
    "netscore_extender_table_corrected",
    "1 when the snapshot's scores include the placement correction.", MetricType::gauge};
constexpr MetricInfo kClusterSynced{"netscore_extender_table_cluster_synced",
                                    "1 when the snapshot knows which nodes the cluster has.",
                                    MetricType::gauge};
constexpr MetricInfo kNodesWithoutSeries{"netscore_extender_nodes_without_series",
                                         "Nodes in the cluster that Prometheus has no series for.",
                                         MetricType::gauge};
constexpr MetricInfo kSeriesWithoutNode{"netscore_extender_series_without_node",
                                        "Series whose node label matches no node in the cluster.",
                                        MetricType::gauge};

}  // namespace

ClusterMismatch cluster_mismatch(std::span<const TableRow> rows, const shm::SnapshotMeta& meta) {
  ClusterMismatch m;
  // Before the first full list every node would look like a series without a node.
  m.known = (meta.flags & shm::kSnapshotClusterSynced) != 0;
  if (!m.known) return m;
  for (const auto& row : rows) {
    const bool series = (row.score.flags & shm::kEntryHasSeries) != 0;
    const bool in_cluster = (row.score.flags & shm::kEntryInCluster) != 0;
    if (in_cluster && !series) m.nodes_without_series.push_back(row.name);
    if (series && !in_cluster) m.series_without_node.push_back(row.name);
  }
  std::sort(m.nodes_without_series.begin(), m.nodes_without_series.end());
  std::sort(m.series_without_node.begin(), m.series_without_node.end());
  return m;
}

std::int64_t watch_event_age_ns(const shm::CollectorStatus& status,
                                std::int64_t now_mono_ns) noexcept {
  if (status.watch_last_event_mono_ns == 0) return -1;
  return std::max<std::int64_t>(0, now_mono_ns - status.watch_last_event_mono_ns);
}

void collect_cluster_metrics(const shm::CollectorStatus* status, const shm::SnapshotMeta* meta,
                             const std::vector<TableRow>* rows, std::int64_t now_mono_ns,
                             MetricFamilies& out) {
  if (status != nullptr) {
    MetricFamily& state = out.add(kWatchState);
    for (const auto s : kWatchStates) {
      const auto value = static_cast<std::uint32_t>(s);
      state.samples.push_back({{},
                               {{"state", std::string(shm::watch_state_name(value))}},
                               std::uint64_t{status->watch_state == value ? 1U : 0U}});
    }
    out.add(kWatchErrors, static_cast<double>(status->watch_errors_total));
    out.add(kWatchRelists, static_cast<double>(status->watch_relists_total));
    out.add(kWatchNodes, static_cast<double>(status->watch_nodes));
    out.add(kWatchPods, static_cast<double>(status->watch_pods));
    out.add(kWatchPlacements, static_cast<double>(status->watch_placements));
    if (const std::int64_t age = watch_event_age_ns(*status, now_mono_ns); age >= 0)
      out.add(kWatchEventAge, static_cast<double>(age) * 1e-9);
  }
  if (meta == nullptr) return;
  out.add(kTableCorrected, model::corrected(*meta) ? 1.0 : 0.0);
  out.add(kClusterSynced, (meta->flags & shm::kSnapshotClusterSynced) != 0 ? 1.0 : 0.0);
  if (rows == nullptr) return;
  const ClusterMismatch m = cluster_mismatch(*rows, *meta);
  if (!m.known) return;
  out.add(kNodesWithoutSeries, static_cast<double>(m.nodes_without_series.size()));
  out.add(kSeriesWithoutNode, static_cast<double>(m.series_without_node.size()));
}

}  // namespace netscore::extender
