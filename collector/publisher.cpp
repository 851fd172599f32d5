#include "collector/publisher.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/clock.h"

namespace netscore::collector {

Publisher::Publisher(Options options, ScoreTableWriter& writer, ClusterState& state,
                     const ClusterWatcher& watcher)
    : options_(options), writer_(writer), state_(state), watcher_(watcher) {}

Publisher::~Publisher() {
  stop();
}

void Publisher::start() {
  thread_ = std::thread([this] { run(); });
}

void Publisher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Publisher::submit_measurement(std::vector<NodeSample> samples, std::int64_t eval_time_ms) {
  {
    std::lock_guard lock(mutex_);
    samples_ = std::move(samples);
    eval_time_ms_ = eval_time_ms;
    have_measurement_ = true;
    measurement_dirty_ = true;
  }
  wake_.notify_all();
}

void Publisher::submit_status(const shm::CollectorStatus& status) {
  {
    std::lock_guard lock(mutex_);
    status_ = status;
    status_dirty_ = true;
  }
  wake_.notify_all();
}

void Publisher::cluster_changed() {
  {
    std::lock_guard lock(mutex_);
    cluster_dirty_ = true;
  }
  wake_.notify_all();
}

std::uint64_t Publisher::publishes() const {
  std::lock_guard lock(mutex_);
  return publishes_;
}

void Publisher::run() {
  using Clock = std::chrono::steady_clock;
  auto next_cluster_publish = Clock::now();
  auto next_decay = Clock::now() + options_.decay_tick;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const bool decaying = placed_ > 0 && have_measurement_;
    auto deadline = Clock::now() + std::chrono::seconds(1);
    if (decaying) deadline = std::min(deadline, next_decay);
    if (cluster_dirty_) deadline = std::min(deadline, next_cluster_publish);
    wake_.wait_until(lock, deadline, [&] {
      return stopping_ || measurement_dirty_ || status_dirty_ ||
             (cluster_dirty_ && Clock::now() >= next_cluster_publish);
    });
    if (stopping_) return;
    const auto now = Clock::now();
    const bool cluster_due = cluster_dirty_ && now >= next_cluster_publish;
    const bool decay_due = placed_ > 0 && now >= next_decay;
    const bool publish_now = have_measurement_ && (measurement_dirty_ || cluster_due || decay_due);
    if (cluster_due) {
      cluster_dirty_ = false;
      // Leading edge: this change is published now, the next ones wait out the coalescing window.
      next_cluster_publish = now + options_.coalesce;
    }
    const bool fresh_measurement = measurement_dirty_;
    measurement_dirty_ = false;
    const std::vector<NodeSample> samples = publish_now ? samples_ : std::vector<NodeSample>{};
    const std::int64_t eval_time_ms = eval_time_ms_;
    const std::optional<shm::CollectorStatus> status = status_;
    // A watch state change shows in the status at once, not only with the next refresh (which
    // may be minutes away, or failing while Prometheus is down).
    const bool status_due = status_dirty_ || publish_now || cluster_due;
    status_dirty_ = false;
    lock.unlock();
    if (publish_now) {
      publish(samples, eval_time_ms, fresh_measurement);
      next_decay = Clock::now() + options_.decay_tick;
    }
    if (status_due && status) record_status(*status);
    lock.lock();
    if (publish_now) ++publishes_;
  }
}

void Publisher::publish(const std::vector<NodeSample>& samples, std::int64_t eval_time_ms,
                        bool fresh_measurement) {
  const bool synced = watcher_.status().state == shm::WatchState::synced;
  std::vector<NodeLoad> loads;
  if (synced) {
    const LoadWindow window{.now_ms = wall_now_ms(),
                            .lag_ms = options_.lag_ms,
                            .window_ms = options_.correction.window_ms};
    if (fresh_measurement && learning()) state_.learn(node_rates(samples), window);
    loads = state_.loads(window);
  }
  const BuiltSnapshot snapshot =
      build_snapshot(samples, eval_time_ms, synced ? &loads : nullptr, options_.correction,
                     options_.rules_hash, learning() ? state_.rate_per_pod() : std::nullopt);
  const PublishCounts counts = writer_.publish(snapshot.entries, snapshot.info);
  if (counts.overflow > 0 || counts.rejected > 0) {
    spdlog::warn("publish dropped overflow={} rejected={}", counts.overflow, counts.rejected);
  }
  const bool corrected = snapshot.corrected;
  if (options_.correction.enabled && corrected != corrected_) {
    if (corrected) {
      spdlog::info("placement correction state=on");
    } else {
      spdlog::warn(
          "placement correction state=off reason=\"{}\"",
          synced ? snapshot.uncorrected_reason : std::string("the cluster watch is not synced"));
    }
  }
  corrected_ = corrected;
  placed_ = snapshot.placed;
}

void Publisher::record_status(shm::CollectorStatus status) {
  const WatcherStatus w = watcher_.status();
  status.watch_state = static_cast<std::uint32_t>(w.state);
  status.watch_nodes = static_cast<std::uint32_t>(state_.node_count());
  status.watch_pods = static_cast<std::uint32_t>(state_.pod_count());
  status.watch_placements = placed_;
  status.watch_errors_total = w.errors_total + w.malformed_total;
  status.watch_relists_total = w.relists_total;
  status.watch_synced_wall_ms = w.synced_wall_ms;
  status.watch_last_event_wall_ms = w.last_event_wall_ms;
  status.watch_last_event_mono_ns = w.last_event_mono_ns;
  std::memcpy(status.watch_resource_version, w.resource_version.data(),
              std::min(w.resource_version.size(), sizeof status.watch_resource_version - 1));
  std::memcpy(status.watch_error, w.error.data(),
              std::min(w.error.size(), sizeof status.watch_error - 1));
  writer_.record_status(status);
}

}  // namespace netscore::collector
