#include "collector/pipeline/publisher.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/model/correction.h"
#include "common/model/snapshot.h"
#include "common/model_settings.h"

namespace netscore::collector {
namespace {

template <std::size_t N>
void copy_text(char (&field)[N], const std::string& text) {
  std::memset(field, 0, N);
  std::memcpy(field, text.data(), std::min(text.size(), N - 1));
}

model::MeasuredPod measured_pod(const std::string& name, const PodRates& rates) {
  return {.name = name,
          .receive = rates.receive_valid ? rates.receive : -1,
          .transmit = rates.transmit_valid ? rates.transmit : -1};
}

}  // namespace

Publisher::Options Publisher::options(const Config& config, std::string prometheus_url) {
  return {.correction = correction_settings(config),
          .scoring = scoring_settings(config),
          .lag_ms = load_window(config, 0).lag_ms,
          .rules_hash = config.label_rules.hash,
          .refresh_interval_ms = config.refresh_interval.value.count(),
          .prometheus_url = std::move(prometheus_url)};
}

Publisher::Publisher(Options options, ScoreTableWriter& writer, std::optional<Cluster> cluster)
    : options_(std::move(options)), writer_(writer), cluster_(cluster) {
  status_.writer_pid = getpid();
  status_.refresh_interval_ms = options_.refresh_interval_ms;
}

Publisher::~Publisher() {
  stop();
}

void Publisher::start() {
  if (!cluster_) return;
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  // Named for `top -H`, perf and the benchmark that charges the collector's CPU per pod event.
  pthread_setname_np(thread_.native_handle(), "ns-publisher");
}

void Publisher::stop() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void Publisher::publish(const Measurement& m) {
  if (m.stopped) return;
  bool learn = false;
  {
    std::lock_guard write(write_mutex_);
    log_answer(m);
    if (cluster_) learn = feed_cluster(m);
  }
  // The fit takes tens of ms at thousands of nodes: the publishes of the bindings that come
  // meanwhile (the cluster's thread, under the writer's lock) must not wait for it.
  if (learn) {
    cluster_->state.learn(model::node_rates(m.nodes.samples),
                          load_window_at(options_.clocks.wall_ms()));
  }
  {
    std::lock_guard write(write_mutex_);
    std::uint32_t published = 0;
    if (m.ok) {
      model::MeasuredSnapshot measured =
          model::measure_snapshot(m.nodes.samples, m.eval_time_ms, options_.scoring, name_order_);
      have_measurement_ = true;
      published = publish_snapshot(measured);
      name_order_ = measured.name_order;
      if (cluster_) measured_ = std::move(measured);
    }
    record(m, published);
    write_status();
  }
  if (!cluster_) return;
  {
    std::lock_guard lock(mutex_);
    rescheduled_ = true;
  }
  wake_.notify_all();
}

void Publisher::cluster_changed() {
  bool was_dirty = false;
  {
    std::lock_guard lock(mutex_);
    was_dirty = std::exchange(cluster_dirty_, true);
  }
  // Already dirty: the loop has woken for that change and waits out the gap, or is about to wake;
  // waking it again for each later event (every binding of a burst) would only cost a context
  // switch each.
  if (!was_dirty) wake_.notify_all();
}

std::uint64_t Publisher::publishes() const {
  std::lock_guard write(write_mutex_);
  return publishes_;
}

void Publisher::run(std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  auto next_cluster_publish = Clock::now();
  while (!stop.stop_requested()) {
    auto deadline = Clock::now() + std::chrono::seconds(1);
    {
      std::lock_guard write(write_mutex_);
      if (placed_ > 0 && have_measurement_) {
        const auto decay_in =
            std::chrono::nanoseconds(next_decay_mono_ns_ - options_.clocks.mono_ns());
        deadline = std::min(deadline, Clock::now() + decay_in);
      }
    }
    std::unique_lock lock(mutex_);
    if (cluster_dirty_) deadline = std::min(deadline, next_cluster_publish);
    // A change that arrives while waiting for a later deadline (the decay tick, the second)
    // wakes the loop to wait for the gap's end instead.
    wake_.wait_until(lock, stop, deadline, [&] {
      return rescheduled_ || (cluster_dirty_ && (Clock::now() >= next_cluster_publish ||
                                                 deadline > next_cluster_publish));
    });
    if (stop.stop_requested()) return;
    rescheduled_ = false;
    const auto now = Clock::now();
    const bool cluster_due = cluster_dirty_ && now >= next_cluster_publish;
    // Leading edge: this change is published now, the next ones wait out the gap.
    if (cluster_due) cluster_dirty_ = false;
    lock.unlock();
    republish(cluster_due);
    if (cluster_due) next_cluster_publish = now + cluster_publish_gap(Clock::now() - now, options_);
  }
}

std::chrono::nanoseconds Publisher::cluster_publish_gap(std::chrono::nanoseconds took,
                                                        const Options& options) {
  const auto share = std::chrono::duration_cast<std::chrono::nanoseconds>(
      took / std::max(options.cluster_busy_share, 1e-3));
  return std::clamp<std::chrono::nanoseconds>(share, options.coalesce, options.coalesce_max);
}

void Publisher::republish(bool cluster_due) {
  std::lock_guard write(write_mutex_);
  const bool decay_due = placed_ > 0 && options_.clocks.mono_ns() >= next_decay_mono_ns_;
  const bool publish_now = have_measurement_ && (cluster_due || decay_due);
  if (publish_now) publish_snapshot(measured_);
  // A watch state change shows in the status at once, not only with the next refresh (which
  // may be minutes away, or failing while Prometheus is down).
  if (have_status_ && (publish_now || cluster_due)) write_status();
}

bool Publisher::feed_cluster(const Measurement& m) {
  if (m.pod_traffic.every_pod) measure_pods(*m.pod_traffic.every_pod, m.pod_traffic.recent.get());
  if (cluster_->rebalance) {
    cluster_->rebalance->set_utilisation(m.rebalance.utilisation);
    if (!m.rebalance.error.empty())
      spdlog::warn("rebalance utilisation error=\"{}\"", m.rebalance.error);
    if (!m.rebalance.missing.empty())
      spdlog::warn("rebalance utilisation missing=\"{}\"", m.rebalance.missing);
  }
  return m.ok && watch_synced() && learning();
}

bool Publisher::watch_synced() const {
  return cluster_ && cluster_->watcher.status().state == shm::WatchState::synced;
}

std::uint32_t Publisher::publish_snapshot(const model::MeasuredSnapshot& measured) {
  const bool synced = watch_synced();
  std::vector<model::NodeLoad> loads;
  if (synced) loads = cluster_->state.loads(load_window_at(options_.clocks.wall_ms()));
  const model::BuiltSnapshot& snapshot = model::build_snapshot(
      measured, synced ? &loads : nullptr, options_.correction, options_.rules_hash,
      synced ? unknown_pod_rates() : model::LearnedRates{}, options_.scoring, snapshot_buffers_);
  const PublishCounts counts = writer_.publish(snapshot.entries, snapshot.info);
  if (synced && options_.correction.enabled)
    placement_records_.record(cluster_->state, writer_, options_.clocks.wall_ms());
  if (counts.overflow > 0 || counts.rejected > 0) {
    spdlog::warn("publish dropped overflow={} rejected={}", counts.overflow, counts.rejected);
  }
  if (cluster_) {
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
  }
  placed_ = snapshot.placed;
  next_decay_mono_ns_ =
      options_.clocks.mono_ns() +
      std::chrono::duration_cast<std::chrono::nanoseconds>(options_.decay_tick).count();
  ++publishes_;
  return counts.stored;
}

model::LoadWindow Publisher::load_window_at(std::int64_t now_ms) const {
  return {.now_ms = now_ms, .lag_ms = options_.lag_ms, .window_ms = options_.correction.window_ms};
}

model::LearnedRates Publisher::unknown_pod_rates() const {
  if (learning()) return cluster_->state.learned_per_pod();
  if (pod_traffic_in_use()) return cluster_->state.measured_per_pod();
  return {};
}

void Publisher::log_answer(const Measurement& m) {
  const PlanReport& plan = m.plan;
  if (plan.asked_apart > 0 || plan.path != logged_plan_) {
    spdlog::log(plan.path != logged_plan_ ? spdlog::level::info : spdlog::level::debug,
                "query path=\"{}\" asked_apart={} asked_apart_total={} speeds_age_ms={}", plan.path,
                plan.asked_apart, plan.asked_apart_total,
                plan.speeds_eval_time_ms > 0 ? m.eval_time_ms - plan.speeds_eval_time_ms : -1);
    logged_plan_ = plan.path;
  }
  const NodeAnswer& nodes = m.nodes;
  for (const auto& w : nodes.warnings) spdlog::warn("prometheus warning=\"{}\"", w);
  const std::uint32_t unparsable = nodes.missing_label + nodes.duplicate_node + nodes.not_a_number;
  if (unparsable > 0) {
    spdlog::warn("skipped series total={} missing_label={} duplicate_node={} not_a_number={}",
                 unparsable, nodes.missing_label, nodes.duplicate_node, nodes.not_a_number);
  }
  if (!nodes.answered) return;
  if (nodes.rejected_names != logged_rejected_) {
    if (!nodes.rejected_names.empty()) spdlog::warn("{}", nodes.rejected_names);
    logged_rejected_ = nodes.rejected_names;
  }
  if (!m.ok && m.diagnosis.findings && m.diagnosis.status) {
    spdlog::warn("no usable series diagnosis=\"{}\"", *m.diagnosis.status);
  }
}

void Publisher::record(const Measurement& m, std::uint32_t published) {
  const bool was_failing = status_.consecutive_failures > 0;
  have_status_ = true;
  status_.refresh_started_wall_ms = m.timing.started_wall_ms;
  status_.refresh_finished_wall_ms = m.timing.finished_wall_ms;
  status_.heartbeat_mono_ns = m.timing.finished_mono_ns;
  status_.query_duration_us = m.timing.duration_us;
  status_.side_requests_total = m.plan.asked_apart_total;
  status_.side_requests_failed_total = m.plan.failed_total;
  status_.link_speeds_eval_wall_ms = m.plan.speeds_eval_time_ms;
  ++status_.refreshes_total;
  if (m.ok) {
    status_.consecutive_failures = 0;
    status_.last_success_wall_ms = status_.refresh_finished_wall_ms;
    status_.last_success_mono_ns = status_.heartbeat_mono_ns;
    status_.series_count = m.nodes.series;
    status_.skipped_series = m.nodes.skipped;
  } else {
    ++status_.consecutive_failures;
    ++status_.failures_total;
  }
  if (m.pod_traffic.every_pod) record_pod_traffic(m.pod_traffic);
  const RecentPodTraffic* recent = m.pod_traffic.recent.get();
  status_.pod_traffic_recent_pods = recent ? static_cast<std::uint32_t>(recent->pods.size()) : 0;
  status_.pod_traffic_recent_eval_wall_ms = recent ? recent->eval_time_ms : 0;
  copy_text(status_.last_error, m.error);
  if (m.diagnosis.status) copy_text(status_.diagnosis, *m.diagnosis.status);
  if (m.ok && was_failing) {
    spdlog::info("prometheus recovered nodes={} took_ms={}", published,
                 m.timing.duration_us / 1000);
  } else if (!m.ok && !was_failing) {
    spdlog::warn("prometheus failing url={} error=\"{}\" attempts={}", options_.prometheus_url,
                 m.error, m.timing.attempts);
  }
  spdlog::debug("refresh ok={} nodes={} series={} skipped={} attempts={} took_us={} error=\"{}\"",
                m.ok, published, m.nodes.series, m.nodes.skipped, m.timing.attempts,
                m.timing.duration_us, m.error);
}

void Publisher::measure_pods(const PodTraffic& traffic, const RecentPodTraffic* recent) {
  // A read prices the pods once; the measurements until the next one carry the same.
  const bool full_read = traffic.eval_time_ms != measured_pods_eval_ms_;
  const std::int64_t recent_eval_ms = recent != nullptr ? recent->eval_time_ms : 0;
  if (!full_read && recent_eval_ms == measured_recent_eval_ms_) return;
  if (full_read) {
    measured_pods_eval_ms_ = traffic.eval_time_ms;
    std::vector<model::MeasuredPod> measured;
    measured.reserve(traffic.pods.size());
    for (const auto& [name, rates] : traffic.pods) measured.push_back(measured_pod(name, rates));
    cluster_->state.measure_pods(measured, load_window_at(traffic.eval_time_ms));
  }
  measured_recent_eval_ms_ = recent_eval_ms;
  // Pods the read of every pod does not price: their recent rates, again after each such read.
  if (recent == nullptr || recent->pods.empty()) return;
  std::vector<model::MeasuredPod> measured;
  measured.reserve(recent->pods.size());
  for (const auto& [name, read] : recent->pods) measured.push_back(measured_pod(name, read.rates));
  cluster_->state.measure_recent_pods(measured);
}

void Publisher::record_pod_traffic(const PodTrafficReads& reads) {
  const PodTraffic& traffic = *reads.every_pod;
  const auto state = static_cast<std::uint32_t>(reads.state);
  if (state != status_.pod_traffic_state) {
    spdlog::info("pod traffic state={} query=\"{}\" error=\"{}\"",
                 shm::pod_traffic_state_name(state), traffic.detection_query, traffic.error);
  }
  // The cadence follows the reads' costs and may step at every read: for diagnosis only.
  if (reads.interval_ms != logged_pod_read_interval_ms_) {
    spdlog::debug("pod traffic read_every_ms={} full_ms={:.0f} node_ms={:.1f} recent_ms={:.1f}",
                  reads.interval_ms, reads.costs.full_ms, reads.costs.node_ms,
                  reads.costs.recent_ms);
    logged_pod_read_interval_ms_ = reads.interval_ms;
  }
  status_.pod_traffic_state = state;
  status_.pod_traffic_pods = static_cast<std::uint32_t>(traffic.pods.size());
  status_.pod_traffic_eval_wall_ms = traffic.eval_time_ms;
  status_.pod_traffic_watched = reads.watched;
}

void Publisher::write_status() {
  shm::CollectorStatus status = status_;
  if (cluster_) {
    const WatcherStatus w = cluster_->watcher.status();
    status.watch_state = static_cast<std::uint32_t>(w.state);
    status.watch_nodes = static_cast<std::uint32_t>(cluster_->state.node_count());
    status.watch_pods = static_cast<std::uint32_t>(cluster_->state.pod_count());
    status.watch_placements = placed_;
    status.watch_errors_total = w.errors_total + w.malformed_total;
    status.watch_relists_total = w.relists_total;
    status.watch_synced_wall_ms = w.synced_wall_ms;
    status.watch_last_event_wall_ms = w.last_event_wall_ms;
    status.watch_last_event_mono_ns = w.last_event_mono_ns;
    copy_text(status.watch_resource_version, w.resource_version);
    copy_text(status.watch_error, w.error);
    if (const RebalanceStatus* r = cluster_->rebalance) {
      status.rebalance_nominees = r->nominees;
      status.rebalance_patches_total = r->patches_total;
      status.rebalance_patch_failures_total = r->patch_failures_total;
    }
  }
  writer_.record_status(status);
}

}  // namespace netscore::collector
