#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/kube/rebalance_labeler.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/placement_records.h"
#include "collector/pipeline/pod_traffic.h"
#include "collector/pipeline/recent_pod_traffic.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "common/model/snapshot.h"
#include "common/table/score_table_writer.h"

namespace netscore::collector {

// The one writer of the score table and of the collector status. Measurements come in through
// publish(); with a watched cluster, its own thread also publishes
//   - at once after a cluster change (leading edge), then, while events keep coming, after a
//     gap of at least `coalesce` that grows with what a publish costs (cluster_publish_gap), so a
//     binding shows within milliseconds of its watch event in a small cluster and a burst of
//     bindings in a large one does not keep a core busy republishing the whole table,
//   - every `decay_tick` while placements are being counted, as their expected traffic decays.
// A failed measurement keeps the last snapshot and is recorded in the status. Nothing is
// published before the first successful measurement, and no status before the first
// measurement. The correction is applied only while the watcher is synced; otherwise (and
// without a cluster) the snapshot is exactly the measurement. Every write happens under one
// lock: a measurement is published on the caller's thread (the query, the slow part, is done by
// then, and workload learning's fit runs outside the lock), so neither a slow Prometheus nor the
// fit delays cluster updates. Thread-safe.
class Publisher {
 public:
  struct Options {
    model::CorrectionSettings correction{};
    model::ScoringSettings scoring{};
    std::int64_t lag_ms = 15000;
    std::uint64_t rules_hash = 0;
    std::int64_t refresh_interval_ms = 15000;  // recorded in the status
    std::string prometheus_url{};              // redacted: named when Prometheus starts failing
    std::chrono::milliseconds coalesce{1};
    // The share of one core that publishes following cluster changes may take, and the longest
    // gap that share may impose: burst spreading in the extender remembers its recommendations
    // for NETSCORE_SPREAD_WINDOW (200ms by default), so a binding must reach the table well
    // within that. A twentieth: a departure must reach the table before kube-scheduler scores the
    // pod that replaces it, which a ReplicaSet creates as soon as it sees the old one terminating,
    // some 5-20 ms later; a gap of 20 ms (a two-hundredth share, as before) left the node
    // a pod had just left looking busiest to its replacement, and a churning cluster a tenth of
    // peak/mean worse (bench/results/regimes.md). While bindings keep coming these publishes are
    // nearly all the collector's work per binding (bench/micro/watcher_bench.cpp
    // BM_Watcher_PodEventCost); at 5,000 nodes the gap stays at coalesce_max.
    double cluster_busy_share = 0.05;
    std::chrono::milliseconds coalesce_max{100};
    std::chrono::milliseconds decay_tick{1000};
    // The table's stamps, the placements' "now" and the decay tick's.
    Clocks clocks{};
  };
  // The watched cluster: its state and the watcher filling it (read for the status).
  struct Cluster {
    ClusterState& state;
    const WatchStatusSource& watcher;
    RebalanceStatus* rebalance = nullptr;  // with NETSCORE_REBALANCE_LABEL
  };

  static Options options(const Config& config, std::string prometheus_url);
  // The wait after a cluster-driven publish that took `took` before the next one: `took` over
  // the busy share, within [coalesce, coalesce_max].
  static std::chrono::nanoseconds cluster_publish_gap(std::chrono::nanoseconds took,
                                                      const Options& options);

  Publisher(Options options, ScoreTableWriter& writer, std::optional<Cluster> cluster = {});
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;
  ~Publisher();

  // The cluster's thread (nothing to do without a cluster).
  void start();
  void stop();
  // A stopped measurement says nothing about Prometheus and is not recorded.
  void publish(const Measurement& measurement);
  void cluster_changed();
  // What the cluster's thread does when it wakes: publish for a cluster change, or when the decay
  // tick is due. Public for whoever drives time instead of that thread (the closed-loop
  // simulator, which never start()s it).
  void republish(bool cluster_changed);
  std::uint64_t publishes() const;

 private:
  void run(std::stop_token stop);
  void log_answer(const Measurement& m);
  void record(const Measurement& m, std::uint32_t published);
  void record_pod_traffic(const PodTrafficReads& reads);
  // Hands a new read of the traffic per pod, of every pod or of the recent ones, to the ledger,
  // which prices the pods it measured.
  void measure_pods(const PodTraffic& traffic, const RecentPodTraffic* recent);
  // What a measurement tells the watched cluster before a snapshot reads it: the pods' traffic
  // and the rebalance reading; true when workload learning is to be fed its node rates, which
  // publish() does without the writer's lock. So a measurement flows down once: the cluster fed,
  // then the snapshot measured, corrected and written.
  bool feed_cluster(const Measurement& m);
  bool watch_synced() const;
  std::uint32_t publish_snapshot(const model::MeasuredSnapshot& measured);
  void write_status();
  bool pod_traffic_in_use() const {
    return status_.pod_traffic_state == static_cast<std::uint32_t>(shm::PodTrafficState::in_use);
  }
  bool learning() const {
    return model::learns_workloads(options_.correction, pod_traffic_in_use());
  }
  // What a pod of an unknown workload is expected to cost: what workload learning fits, or where
  // each pod's own traffic is read instead, the measured pods' mean; nothing without either (the
  // snapshot then divides the nodes' traffic by their settled pods).
  model::LearnedRates unknown_pod_rates() const;
  // The window a placement's traffic enters at `now_ms`: the lag and the correction's window, both
  // load_window()'s (Publisher::options).
  model::LoadWindow load_window_at(std::int64_t now_ms) const;

  const Options options_;
  ScoreTableWriter& writer_;
  const std::optional<Cluster> cluster_;

  // Everything written to the table, under write_mutex_.
  mutable std::mutex write_mutex_;
  shm::CollectorStatus status_{};
  bool have_status_ = false;
  model::MeasuredSnapshot measured_{};  // the latest successful measurement, kept for a cluster
  bool have_measurement_ = false;
  // The latest measurement's name order: the next one's samples usually come in the same order.
  std::vector<std::size_t> name_order_{};
  model::SnapshotBuffers snapshot_buffers_{};  // kept between publishes: see build_snapshot
  std::uint32_t placed_ = 0;
  bool corrected_ = false;
  std::int64_t next_decay_mono_ns_ = 0;  // on options_.clocks
  std::uint64_t publishes_ = 0;
  std::string logged_rejected_{};
  std::string logged_plan_{};                     // the query path last logged
  std::int64_t logged_pod_read_interval_ms_ = 0;  // the per-pod read cadence last logged
  std::int64_t measured_pods_eval_ms_ = 0;        // of the read last handed to the ledger
  std::int64_t measured_recent_eval_ms_ = 0;      // of the recent read last handed to it
  PlacementRecords placement_records_{};          // the table's recent placements, for /explain

  // The cluster thread's wake-ups, under mutex_.
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool cluster_dirty_ = false;
  bool rescheduled_ = false;  // a measurement changed when placements decay
  std::jthread thread_;
};

}  // namespace netscore::collector
