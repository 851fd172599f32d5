#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "collector/cluster_state.h"
#include "collector/cluster_watcher.h"
#include "collector/placement.h"
#include "collector/refresher.h"
#include "collector/response_parser.h"
#include "common/table/score_table_writer.h"

namespace netscore::collector {

// The one thread that writes the table when the watcher runs. Prometheus refreshes hand it
// measurements (a query can take seconds, so cluster updates must not wait for one) and the
// watcher tells it about changes; it publishes
//   - after each measurement,
//   - at once after a cluster change (leading edge), then at most once per `coalesce` while
//     events keep coming, so a binding shows within milliseconds of its watch event,
//   - every `decay_tick` while placements are being counted, as their expected traffic decays.
// Nothing is published before the first measurement: until then the table is what it is today.
// The correction is applied only while the watcher is synced; otherwise the snapshot is exactly
// the measurement. Thread-safe: every public method may be called from any thread.
class Publisher {
 public:
  struct Options {
    CorrectionSettings correction{};
    std::int64_t lag_ms = 15000;
    std::uint64_t rules_hash = 0;
    std::chrono::milliseconds coalesce{5};
    std::chrono::milliseconds decay_tick{1000};
  };

  Publisher(Options options, ScoreTableWriter& writer, ClusterState& state,
            const ClusterWatcher& watcher);
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;
  ~Publisher();

  void start();
  void stop();
  void submit_measurement(std::vector<NodeSample> samples, std::int64_t eval_time_ms);
  void submit_status(const shm::CollectorStatus& status);
  void cluster_changed();
  std::uint64_t publishes() const;

 private:
  void run();
  void publish(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
               bool fresh_measurement);
  void record_status(shm::CollectorStatus status);
  bool learning() const {
    return options_.correction.enabled && options_.correction.learn_workloads;
  }

  Options options_;
  ScoreTableWriter& writer_;
  ClusterState& state_;
  const ClusterWatcher& watcher_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool measurement_dirty_ = false;
  bool status_dirty_ = false;
  bool cluster_dirty_ = false;
  std::vector<NodeSample> samples_{};
  std::int64_t eval_time_ms_ = 0;
  bool have_measurement_ = false;
  std::optional<shm::CollectorStatus> status_;
  std::uint64_t publishes_ = 0;
  // Publisher thread only.
  std::uint32_t placed_ = 0;
  bool corrected_ = false;
  std::thread thread_;
};

}  // namespace netscore::collector

namespace netscore::collector {

// The watcher, its state and the publisher wired together, stopped in the safe order (the
// watcher's callbacks reach the publisher, and the publisher reads the watcher).
class PlacementPipeline {
 public:
  PlacementPipeline(const Config& config, ScoreTableWriter& writer)
      : state_(config.refresh_interval.value.count() + config.query.time_range.value.count()),
        watcher_({.kube = config.kube,
                  .rules = config.label_rules,
                  .on_change = [this] { publisher_.cluster_changed(); }},
                 state_),
        publisher_({.correction = {.enabled = config.kube.correction,
                                   .function = config.query.function,
                                   .window_ms = config.query.time_range.value.count(),
                                   .default_rate = config.kube.pod_receive_rate,
                                   .learn_workloads = config.kube.learn_workloads},
                    .lag_ms = config.refresh_interval.value.count(),
                    .rules_hash = config.label_rules.hash},
                   writer, state_, watcher_) {}
  PlacementPipeline(const PlacementPipeline&) = delete;
  PlacementPipeline& operator=(const PlacementPipeline&) = delete;
  ~PlacementPipeline() { stop(); }

  void start() {
    publisher_.start();
    watcher_.start();
  }
  void stop() {
    watcher_.stop();
    publisher_.stop();
  }
  // What the refresher hands its results to.
  Refresher::Sink sink() {
    return {
        .measurement =
            [this](std::vector<NodeSample> samples, std::int64_t eval_time_ms) {
              publisher_.submit_measurement(std::move(samples), eval_time_ms);
            },
        .status = [this](const shm::CollectorStatus& status) { publisher_.submit_status(status); }};
  }

 private:
  ClusterState state_;
  ClusterWatcher watcher_;
  Publisher publisher_;
};

}  // namespace netscore::collector
