#include "bench/closed_loop/virtual_time/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <queue>
#include <string>

#include "bench/closed_loop/placement/placement.h"
#include "bench/closed_loop/placement/timed_event.h"
#include "bench/closed_loop/reports/balance_metrics.h"
#include "bench/closed_loop/reports/eviction_log.h"
#include "bench/closed_loop/virtual_time/descheduler_model.h"
#include "bench/closed_loop/virtual_time/labeler_model.h"
#include "bench/closed_loop/virtual_time/node_counters.h"
#include "bench/closed_loop/virtual_time/node_query.h"
#include "bench/closed_loop/virtual_time/pod_counters.h"
#include "bench/closed_loop/virtual_time/pod_reads.h"
#include "bench/closed_loop/virtual_time/promql.h"
#include "bench/closed_loop/workload/pod_owner.h"
#include "common/model/correction.h"
#include "common/model/freshness.h"
#include "common/model/inputs.h"
#include "common/model/placement_ledger.h"
#include "common/model/prioritize.h"
#include "common/model/rebalance.h"
#include "common/model/scoring.h"
#include "common/model/snapshot.h"
#include "common/model_settings.h"
#include "common/table/score_table_reader.h"
#include "common/table/score_table_writer.h"
#include "tests/support/scratch_table.h"

namespace netscore::sim {
namespace {

using model::NodeSample;

// A pod of the same workload evicted again within ten minutes of cluster time is churn.
constexpr double kReEvictionWindow_s = 600;

// Wall-clock origin of virtual time: the collector's model works in Unix milliseconds.
constexpr std::int64_t kEpochMs = 1'700'000'000'000;

std::int64_t to_ms(double t) {
  return kEpochMs + std::llround(t * 1000);
}

// Prometheus scrapes before the trace starts: the real harness creates the first pod once netscore
// is ready, every node measured, which takes two scrapes and a refresh; the rate window is still
// filling then.
double ready_lead_s(const LoopParams& params) {
  return 2 * params.scrape_s;
}

Config load(Component component, const Environment& env) {
  return load_config(component, {}, env);
}

// Virtual milliseconds of one of the collector's durations.
std::int64_t scaled_ms(std::chrono::milliseconds d, const LoopParams& params) {
  return std::llround(static_cast<double>(d.count()) / params.time_scale);
}

// Only series with the pod's namespace and name are read: a runtime that leaves them empty
// (PodSeries::unlabelled) gives the collector nothing, as none does.
bool reads_pod_series(const Config& collector, const LoopParams& params) {
  return collector.pod_traffic.enabled && params.pod_series == PodSeries::cadvisor;
}

enum class EventKind {
  trace,
  scrape,
  refresh,
  schedule,
  visible_bind,
  visible_remove,
  traffic,
  sample,
  deschedule
};

using Event = TimedEvent<EventKind>;

class Loop {
 public:
  Loop(const Trace& trace, const Policy& policy, const LoopParams& params)
      : trace_(trace),
        policy_(policy),
        params_(params),
        nodes_(trace.node_names.size()),
        collector_(load(Component::collector, policy.env)),
        extender_(load(Component::extender, policy.env)),
        refresh_s_(static_cast<double>(collector_.refresh_interval.value.count()) / 1000.0 /
                   params.time_scale),
        range_ms_(scaled_ms(collector_.query.time_range.value, params)),
        rebalance_range_ms_(scaled_ms(rebalance_window(collector_).value, params)),
        max_age_ns_(std::llround(static_cast<double>(extender_.max_age.value.count()) * 1e6 /
                                 params.time_scale)),
        state_(std::llround(refresh_s_ * 1000) + range_ms_),
        table_("closed-loop"),
        writer_({.name = table_.str(), .capacity = 1024}),
        reader_({.name = table_.str()}),
        speed_(trace.speed),
        nodes_traffic_(
            trace.background, trace.background_transmit, trace.counter_start,
            trace.counter_start_transmit, -ready_lead_s(params),
            std::max(range_ms_, rebalance_range_ms_) + 3 * std::llround(params.scrape_s * 1000)),
        started_(trace.pods.size(), false),
        removed_(trace.pods.size(), false),
        pod_rate_(trace.pods.size()),
        pod_transmit_(trace.pods.size()),
        placed_ms_(trace.pods.size(), 0),
        pod_series_(reads_pod_series(collector_, params)),
        pod_counters_(std::max(range_ms_, recent_range_ms()) +
                      3 * std::llround(params.scrape_s * 1000)),
        pod_reads_({.interval_ms = scaled_ms(pod_traffic_interval(collector_), params),
                    .window = {.lag_ms = std::llround(refresh_s_ * 1000), .window_ms = range_ms_},
                    .recent = params.recent_pod_reads,
                    .recent_range_ms = recent_range_ms()},
                   [this](std::uint32_t pod) { return placed_ms_[pod]; }),
        recorder_(params.sample_s, params.hot_factor, params.hot_utilisation),
        placement_(trace, policy, params),
        incarnation_(trace.pods.size(), 0),
        descheduler_s_(params.descheduler_interval_s / params.time_scale) {
    for (const auto& pod : trace.pods) {
      pod_rate_[pod.id] = pod.rate;
      pod_transmit_[pod.id] = pod.transmit_rate;
    }
    for (const auto& name : trace.node_names) {
      names_.push_back(name);
      name_hashes_.push_back(shm::name_hash(name));
      state_.upsert_node({.name = name});
    }
    if (descheduler_s_ > 0) {
      evictions_.emplace(kReEvictionWindow_s / params.time_scale, descheduler_s_);
      rebalance_ = {.target_points = collector_.rebalance.target_points,
                    .low_points = collector_.rebalance.low_points,
                    .min_pod_age_ms = scaled_ms(collector_.rebalance.min_pod_age.value, params)};
      if (policy.kind == PolicyKind::netscore)
        labeler_.emplace(rebalance_, scaled_ms(rebalance_rest(collector_).value, params));
    }
  }

  RunResult run() {
    for (const auto pod : trace_.initial_pods) place_initial(pod);
    for (std::uint32_t i = 0; i < trace_.events.size(); ++i)
      push(trace_.events[i].t, EventKind::trace, i);
    push(params_.scrape_s / 2 - ready_lead_s(params_), EventKind::scrape);
    push(-params_.scrape_s / 4, EventKind::refresh);  // the first after the second scrape
    push(0, EventKind::sample);
    if (evictions_) push(0, EventKind::deschedule);
    const double end = trace_.params.duration_s;
    while (!queue_.empty() && queue_.top().t < end) {
      const Event e = queue_.top();
      queue_.pop();
      handle(e);
    }
    RunResult out{.policy = policy_.name,
                  .balance = recorder_.result(),
                  .bursts = burst_spread(trace_, placement_.node_of_pod()),
                  .peak_to_mean = recorder_.peak_to_mean_series(30)};
    if (evictions_) out.evictions = evictions_->summary();
    out.unscored_pods = unscored_pods_;
    return out;
  }

 private:
  void push(double t, EventKind kind, std::uint32_t arg = 0) {
    queue_.push({.t = t, .seq = seq_++, .kind = kind, .arg = arg});
  }

  // The pod's traffic starts (sign 1) or stops (-1) on the node.
  void set_rate(std::size_t node, double t, std::uint32_t pod, double sign) {
    nodes_traffic_.add(node, t, sign * pod_rate_[pod], sign * pod_transmit_[pod]);
  }

  // A workload's traffic drifted: its running pods carry the new rate from t on.
  void rescale(const TraceEvent& event, double t) {
    for (const auto pod : event.pods) {
      const int node = node_of_pod(pod);
      const bool running = started_[pod] && !removed_[pod] && node >= 0;
      if (running) set_rate(static_cast<std::size_t>(node), t, pod, -1);
      pod_rate_[pod] *= event.factor;
      pod_transmit_[pod] *= event.factor;
      if (running) set_rate(static_cast<std::size_t>(node), t, pod, 1);
      if (running && pod_series_)
        pod_counters_.set_rates(pod, to_ms(t), pod_rate_[pod], pod_transmit_[pod]);
    }
  }

  // Pods alive at 0 were placed long ago, the same for every policy, already visible, their
  // traffic settled in every window.
  void place_initial(std::uint32_t pod) {
    const std::size_t best = placement_.initial_node(pod);
    placement_.bind(pod, best);
    started_[pod] = true;
    nodes_traffic_.add(best, -ready_lead_s(params_), trace_.pods[pod].rate,
                       trace_.pods[pod].transmit_rate);
    placed_ms_[pod] = to_ms(-1e6);
    state_.upsert_pod(facts(pod), placed_ms_[pod]);
    if (pod_series_) {
      pod_counters_.start(pod, pod_name(pod), to_ms(-ready_lead_s(params_)), pod_rate_[pod],
                          pod_transmit_[pod], 1e6);
    }
  }

  model::PodFacts facts(std::uint32_t pod) const {
    const PodSpec& spec = trace_.pods[pod];
    return {.uid = pod_uid(pod),
            .node = node_of_pod(pod) >= 0 ? names_[static_cast<std::size_t>(node_of_pod(pod))]
                                          : std::string(),
            .receive_ceiling = spec.receive_ceiling,
            .transmit_ceiling = spec.transmit_ceiling,
            .workload = workload_key(spec, trace_),
            .name = pod_name(pod)};
  }

  int node_of_pod(std::uint32_t pod) const { return placement_.node_of_pod()[pod]; }

  // The short range of the recent pods' read: four scrapes, the fewest that give a pod's rate
  // once its series spans the range.
  std::int64_t recent_range_ms() const { return 4 * std::llround(params_.scrape_s * 1000); }

  // An evicted pod's replacement is a pod of its own to the collector.
  std::string pod_uid(std::uint32_t pod) const {
    const std::string& name = trace_.pods[pod].name;
    return incarnation_[pod] == 0 ? name : name + "-r" + std::to_string(incarnation_[pod]);
  }

  std::string pod_name(std::uint32_t pod) const { return trace_.pods[pod].ns + "/" + pod_uid(pod); }

  void handle(const Event& e) {
    switch (e.kind) {
      case EventKind::trace:
        on_trace(trace_.events[e.arg], e.t);
        break;
      case EventKind::scrape:
        nodes_traffic_.scrape(e.t, to_ms(e.t));
        if (pod_series_) pod_counters_.scrape(to_ms(e.t));
        push(e.t + params_.scrape_s, EventKind::scrape);
        break;
      case EventKind::refresh:
        measure(e.t);
        push(e.t + refresh_s_, EventKind::refresh);
        break;
      case EventKind::schedule:
        schedule_next(e.t);
        break;
      case EventKind::visible_bind:
        if (!removed_[e.arg]) {
          placed_ms_[e.arg] = to_ms(e.t);
          state_.upsert_pod(facts(e.arg), placed_ms_[e.arg]);
          publish(e.t, false);
        }
        break;
      case EventKind::visible_remove:
        state_.remove_pod(pod_uid(e.arg), to_ms(e.t));
        publish(e.t, false);
        break;
      case EventKind::traffic:
        if (!removed_[e.arg] && !started_[e.arg] && node_of_pod(e.arg) >= 0) {
          started_[e.arg] = true;
          set_rate(static_cast<std::size_t>(node_of_pod(e.arg)), e.t, e.arg, 1);
          if (pod_series_) {
            pod_counters_.start(e.arg, pod_name(e.arg), to_ms(e.t), pod_rate_[e.arg],
                                pod_transmit_[e.arg]);
          }
        }
        break;
      case EventKind::sample:
        recorder_.add(nodes_traffic_.receive());
        if (evictions_) {
          evictions_->sample(e.t, hot_nodes(nodes_traffic_.receive(), params_.hot_factor),
                             unavoidably_hot_nodes(nodes_traffic_.receive(), running_pod_receive(),
                                                   trace_.background, params_.hot_factor));
        }
        if (placement_.with_speeds()) {
          recorder_.add_links(nodes_traffic_.receive(), nodes_traffic_.transmit(), speed_);
          recorder_.add_pods(placement_.node_pods(), speed_);
        }
        push(e.t + params_.sample_s, EventKind::sample);
        break;
      case EventKind::deschedule:
        deschedule(e.t);
        push(e.t + descheduler_s_, EventKind::deschedule);
        break;
    }
  }

  std::vector<double> running_pod_receive() const {
    std::vector<double> running;
    for (std::uint32_t pod = 0; pod < trace_.pods.size(); ++pod)
      if (started_[pod] && !removed_[pod] && node_of_pod(pod) >= 0)
        running.push_back(pod_rate_[pod]);
    return running;
  }

  // The descheduler reads the recorded utilisation (the collector's query at this moment) and
  // evicts; the harness plays the kubelet and the ReplicaSet controller at once.
  void deschedule(double t) {
    const auto utilisation =
        recorded_utilisation(collector_.query, node_series(), to_ms(t), rebalance_range_ms_);
    std::vector<EvictablePod> evictable;
    for (std::uint32_t pod = 0; pod < trace_.pods.size(); ++pod) {
      const int node = node_of_pod(pod);
      if (node < 0 || removed_[pod] || !started_[pod]) continue;
      if (trace_.pods[pod].owner_kind != OwnerKind::replicaset) continue;
      if (to_ms(t) - placed_ms_[pod] < rebalance_.min_pod_age_ms) continue;
      if (labeler_ && !labeler_->nominated(pod_name(pod))) continue;
      evictable.push_back({.pod = pod, .node = static_cast<std::size_t>(node)});
    }
    const auto evicted = descheduler_cycle(
        utilisation, evictable,
        {.target_points = rebalance_.target_points, .low_points = rebalance_.low_points});
    for (const auto pod : evicted) evict(pod, t);
    if (!evicted.empty()) publish(t, false);
  }

  void evict(std::uint32_t pod, double t) {
    const auto node = static_cast<std::size_t>(node_of_pod(pod));
    set_rate(node, t, pod, -1);
    if (pod_series_) pod_counters_.stop(pod);
    state_.remove_pod(pod_uid(pod), to_ms(t));
    placement_.unbind(pod);
    evictions_->evicted(t, pod, trace_.pods[pod].deployment, node);
    ++incarnation_[pod];
    started_[pod] = false;
    const bool idle = pending_.empty();
    pending_.push_back(pod);
    if (idle) push(t, EventKind::schedule);
  }

  void on_trace(const TraceEvent& event, double t) {
    if (event.kind == TraceEvent::Kind::create) {
      const bool idle = pending_.empty();
      for (const auto pod : event.pods) pending_.push_back(pod);
      if (idle) push(t, EventKind::schedule);
      return;
    }
    if (event.kind == TraceEvent::Kind::rescale) {
      rescale(event, t);
      return;
    }
    const std::uint32_t pod = event.pods.front();
    removed_[pod] = true;
    const int node = node_of_pod(pod);
    if (node < 0) return;  // still pending: skipped when its turn comes
    if (started_[pod]) set_rate(static_cast<std::size_t>(node), t, pod, -1);
    if (pod_series_) pod_counters_.stop(pod);
    placement_.remove(pod);
    push(t + params_.visible_s, EventKind::visible_remove, pod);
  }

  void schedule_next(double t) {
    while (!pending_.empty() && removed_[pending_.front()]) pending_.pop_front();
    if (pending_.empty()) return;
    const std::uint32_t pod = pending_.front();
    pending_.pop_front();
    const std::size_t node =
        placement_.pick(pod, [&](std::uint32_t p) { return extender_scores(p, t); });
    placement_.bind(pod, node);
    if (evictions_ && incarnation_[pod] > 0)
      evictions_->landed(pod, node, hot_nodes(nodes_traffic_.receive(), params_.hot_factor)[node]);
    push(t + params_.visible_s, EventKind::visible_bind, pod);
    // Its containers start and the next scrape after that is the first to count its traffic.
    push(std::floor(t / params_.scrape_s) * params_.scrape_s + params_.scrape_s, EventKind::traffic,
         pod);
    if (!pending_.empty()) push(t + params_.cycle_s, EventKind::schedule);
  }

  // What the extender answers, by the extender's own decision (model::prioritize) on the table
  // the collector's model published.
  std::vector<std::int64_t> extender_scores(std::uint32_t pod, double t) {
    std::vector<std::string_view> names(names_.begin(), names_.end());
    std::vector<NodeScore> found(nodes_);
    shm::SnapshotMeta meta{};
    const bool read = reader_.lookup(names, name_hashes_, found, meta) == ReadStatus::ok;
    std::vector<std::int64_t> scores(nodes_);
    std::vector<std::int16_t> percent(nodes_);
    const PodSpec& spec = trace_.pods[pod];
    const std::string owner = sibling_key(spec, trace_);
    // The snapshot's publish time in the same virtual nanoseconds as the decision's clock; the
    // simulated collector never fails.
    meta.published_mono_ns = published_ns_;
    const std::int64_t now_ns = std::llround(t * 1e9);
    const bool fresh =
        read && model::snapshot_age(published_ns_, nullptr, now_ns, max_age_ns_).fresh;
    if (!fresh) ++unscored_pods_;
    model::prioritize(prioritize_settings(extender_),
                      {.fresh = fresh, .meta = meta, .nodes = found, .name_hashes = name_hashes_},
                      {.owner = owner,
                       .owner_by_label = by_project_label(spec, trace_),
                       .uid = spec.name,
                       .rate = 0},
                      now_ns, &burst_memory_, scores, percent);
    return scores;
  }

  // What Prometheus holds of the nodes.
  NodeSeries node_series() const {
    return {.names = names_,
            .receive = nodes_traffic_.receive_series(),
            .transmit = nodes_traffic_.transmit_series(),
            .speed = speed_};
  }

  void measure(double t) {
    samples_ = answer_node_query(collector_.query, node_series(), to_ms(t), range_ms_);
    eval_ms_ = to_ms(t);
    have_measurement_ = true;
    if (pod_series_) pod_reads_.refresh(pod_counters_, state_, eval_ms_);
    publish(t, true);
    if (labeler_) {
      const auto read =
          recorded_utilisation(collector_.query, node_series(), to_ms(t), rebalance_range_ms_);
      model::NodeUtilisation utilisation;
      for (std::size_t n = 0; n < nodes_; ++n) utilisation[names_[n]] = read[n];
      labeler_->round(reader_, state_, collector_, utilisation, to_ms(t));
    }
  }

  void publish(double t, bool fresh_measurement) {
    if (!have_measurement_) return;
    model::CorrectionSettings settings = correction_settings(collector_);
    settings.window_ms = range_ms_;  // the time range in virtual time
    const bool learning = model::learns_workloads(settings, pod_series_);
    const model::LoadWindow window{
        .now_ms = to_ms(t), .lag_ms = std::llround(refresh_s_ * 1000), .window_ms = range_ms_};
    if (fresh_measurement && learning) state_.learn(model::node_rates(samples_), window);
    const auto loads = state_.loads(window);
    const auto snapshot = model::build_snapshot(
        samples_, eval_ms_, &loads, settings, 0,
        learning ? state_.learned_per_pod() : model::LearnedRates{}, scoring_settings(collector_));
    writer_.publish(snapshot.entries, snapshot.info);
    published_ns_ = std::llround(t * 1e9);
  }

  const Trace& trace_;
  const Policy& policy_;
  const LoopParams& params_;
  std::size_t nodes_;
  Config collector_, extender_;
  double refresh_s_;
  std::int64_t range_ms_;
  std::int64_t rebalance_range_ms_;  // NETSCORE_REBALANCE_WINDOW in virtual time
  std::int64_t max_age_ns_;          // NETSCORE_MAX_AGE in virtual time
  model::PlacementLedger state_;
  testing::ScratchTable table_;
  ScoreTableWriter writer_;
  ScoreTableReader reader_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> name_hashes_;
  model::BurstMemory burst_memory_;
  std::int64_t published_ns_ = 0;  // virtual time of the latest publish
  std::uint32_t unscored_pods_ = 0;
  std::vector<double> speed_;  // per node, bytes/s; 0: no speed series
  NodeCounters nodes_traffic_;
  std::vector<bool> started_, removed_;
  std::vector<double> pod_rate_, pod_transmit_;  // per pod, its true rates now (drift included)
  std::vector<std::int64_t> placed_ms_;          // per pod, when the ledger counts it placed from
  bool pod_series_;                              // whether the collector reads traffic per pod
  PodCounters pod_counters_;
  PodReads pod_reads_;
  std::deque<std::uint32_t> pending_;
  std::vector<NodeSample> samples_;
  std::int64_t eval_ms_ = 0;
  bool have_measurement_ = false;
  BalanceRecorder recorder_;
  Placement placement_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  // With a descheduler: per pod, its evictions so far; what was evicted and where it landed; the
  // collector's labeler (netscore policies only).
  std::vector<std::uint32_t> incarnation_;
  double descheduler_s_;  // virtual seconds between cycles; 0: no descheduler
  std::optional<EvictionLog> evictions_;
  model::RebalanceSettings rebalance_{};
  std::optional<LabelerModel> labeler_;
};

}  // namespace

RunResult run_policy(const Trace& trace, const Policy& policy, const LoopParams& params) {
  return Loop(trace, policy, params).run();
}

}  // namespace netscore::sim
