#include "extender/views/cluster_view.h"

#include <algorithm>
#include <array>
#include <iterator>

#include <spdlog/fmt/fmt.h>

namespace netscore::extender {
namespace {

constexpr std::array<shm::WatchState, 4> kWatchStates = {
    shm::WatchState::off, shm::WatchState::syncing, shm::WatchState::synced,
    shm::WatchState::failing};

}  // namespace

std::int64_t effective_node_score(const NodeScore& n, const shm::SnapshotMeta& meta) noexcept {
  return (meta.flags & shm::kSnapshotCorrected) != 0 ? n.corrected_node_score : n.node_score;
}

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

void render_cluster_metrics(const shm::CollectorStatus* status, const shm::SnapshotMeta* meta,
                            const std::vector<TableRow>* rows, std::int64_t now_mono_ns,
                            std::string& out) {
  auto it = std::back_inserter(out);
  const auto family = [&](std::string_view name, std::string_view help, std::string_view type) {
    fmt::format_to(it, "# HELP {0} {1}\n# TYPE {0} {2}\n", name, help, type);
  };
  const auto gauge = [&](std::string_view name, std::string_view help, std::string_view type,
                         double value) {
    family(name, help, type);
    fmt::format_to(it, "{} {}\n", name, value);
  };
  if (status != nullptr) {
    family("netscore_extender_kube_watch_state",
           "1 for the collector's Kubernetes API watcher state (off, syncing, synced, failing).",
           "gauge");
    for (const auto state : kWatchStates) {
      const auto value = static_cast<std::uint32_t>(state);
      fmt::format_to(it, "netscore_extender_kube_watch_state{{state=\"{}\"}} {}\n",
                     shm::watch_state_name(value), status->watch_state == value ? 1 : 0);
    }
    gauge("netscore_extender_kube_watch_errors_total",
          "Failed API server requests and malformed events.", "counter",
          static_cast<double>(status->watch_errors_total));
    gauge("netscore_extender_kube_watch_relists_total",
          "Full lists after a 410 Gone or a lost watch.", "counter",
          static_cast<double>(status->watch_relists_total));
    gauge("netscore_extender_kube_watch_nodes", "Nodes known from the Kubernetes API.", "gauge",
          status->watch_nodes);
    gauge("netscore_extender_kube_watch_pods", "Bound pods the watcher tracks.", "gauge",
          status->watch_pods);
    gauge("netscore_extender_kube_watch_placements",
          "Pods currently counted in a placement correction.", "gauge", status->watch_placements);
    if (const std::int64_t age = watch_event_age_ns(*status, now_mono_ns); age >= 0) {
      gauge("netscore_extender_kube_watch_last_event_age_seconds",
            "Time since the watcher's latest event or bookmark (CLOCK_MONOTONIC).", "gauge",
            static_cast<double>(age) * 1e-9);
    }
  }
  if (meta == nullptr) return;
  gauge("netscore_extender_table_corrected",
        "1 when the snapshot's scores include the placement correction.", "gauge",
        (meta->flags & shm::kSnapshotCorrected) != 0 ? 1 : 0);
  gauge("netscore_extender_table_cluster_synced",
        "1 when the snapshot knows which nodes the cluster has.", "gauge",
        (meta->flags & shm::kSnapshotClusterSynced) != 0 ? 1 : 0);
  if (rows == nullptr) return;
  const ClusterMismatch m = cluster_mismatch(*rows, *meta);
  if (!m.known) return;
  gauge("netscore_extender_nodes_without_series",
        "Nodes in the cluster that Prometheus has no series for.", "gauge",
        static_cast<double>(m.nodes_without_series.size()));
  gauge("netscore_extender_series_without_node",
        "Series whose node label matches no node in the cluster.", "gauge",
        static_cast<double>(m.series_without_node.size()));
}

}  // namespace netscore::extender
