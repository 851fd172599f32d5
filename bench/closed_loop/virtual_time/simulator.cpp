#include "bench/closed_loop/virtual_time/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <queue>
#include <string>

#include "bench/closed_loop/placement/placement.h"
#include "bench/closed_loop/placement/scaled_environment.h"
#include "bench/closed_loop/placement/timed_event.h"
#include "bench/closed_loop/processes/kube_objects_json.h"
#include "bench/closed_loop/reports/balance_metrics.h"
#include "bench/closed_loop/reports/eviction_log.h"
#include "bench/closed_loop/virtual_time/descheduler_model.h"
#include "bench/closed_loop/virtual_time/labeler_model.h"
#include "bench/closed_loop/virtual_time/node_counters.h"
#include "bench/closed_loop/virtual_time/node_query.h"
#include "bench/closed_loop/virtual_time/pod_counters.h"
#include "bench/closed_loop/virtual_time/promql.h"
#include "bench/closed_loop/virtual_time/virtual_clock.h"
#include "bench/closed_loop/virtual_time/virtual_collector.h"
#include "bench/closed_loop/virtual_time/virtual_extender.h"
#include "bench/closed_loop/workload/pod_owner.h"
#include "collector/pipeline/publisher.h"
#include "common/model/rebalance.h"
#include "common/table/score_table_reader.h"
#include "tests/support/fake_kube_objects.h"
#include "tests/support/scratch_table.h"

namespace netscore::sim {
namespace {

// A pod of the same workload evicted again within ten minutes of cluster time is churn.
constexpr double kReEvictionWindow_s = 600;

std::int64_t to_ms(double t) {
  return VirtualClock::wall_ms(t);
}

// Prometheus scrapes before the trace starts: the real harness creates the first pod once netscore
// is ready, every node measured, which takes two scrapes and a refresh; the rate window is still
// filling then.
double ready_lead_s(const LoopParams& params) {
  return 2 * params.scrape_s;
}

// netscore's settings as both levels run it: the policy's, at the loop's time scale.
Config load(Component component, const Policy& policy, const LoopParams& params) {
  return load_config(component, {}, scaled_environment(policy.env, params.time_scale));
}

// Virtual milliseconds of a duration of the descheduler's, which the time scale divides too.
std::int64_t scaled_ms(std::chrono::milliseconds d, const LoopParams& params) {
  return std::llround(static_cast<double>(d.count()) / params.time_scale);
}

// cAdvisor's series carry the pod's namespace and name; a runtime that leaves them empty
// (PodSeries::unlabelled) gives the collector nothing, as none does.
bool labelled_pod_series(const LoopParams& params) {
  return params.pod_series == PodSeries::cadvisor;
}

std::int64_t ms(const PromDuration& d) {
  return d.value.count();
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
  deschedule,
  tick
};

using Event = TimedEvent<EventKind>;

class Loop {
 public:
  Loop(const Trace& trace, const Policy& policy, const LoopParams& params)
      : trace_(trace),
        policy_(policy),
        params_(params),
        nodes_(trace.node_names.size()),
        collector_config_(load(Component::collector, policy, params)),
        extender_config_(load(Component::extender, policy, params)),
        refresh_s_(static_cast<double>(ms(collector_config_.refresh_interval)) / 1000.0),
        range_ms_(ms(collector_config_.query.time_range)),
        rebalance_range_ms_(ms(rebalance_window(collector_config_))),
        table_("closed-loop"),
        names_(trace.node_names),
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
        pod_series_(labelled_pod_series(params) && collector_config_.pod_traffic.enabled),
        pod_counters_(std::max(range_ms_, ms(pod_traffic_recent_range(collector_config_))) +
                      3 * std::llround(params.scrape_s * 1000)),
        collector_(collector_config_, clock_, table_.str(), pod_counters_,
                   labelled_pod_series(params)),
        extender_(extender_config_, table_.str(), names_),
        reader_({.name = table_.str()}),
        tick_s_(std::chrono::duration<double>(collector::Publisher::Options{}.decay_tick).count()),
        recorder_(params.sample_s, params.hot_factor, params.hot_utilisation),
        placement_(trace, policy, params),
        incarnation_(trace.pods.size(), 0),
        descheduler_s_(params.descheduler_interval_s / params.time_scale) {
    for (const auto& pod : trace.pods) {
      pod_rate_[pod.id] = pod.rate;
      pod_transmit_[pod.id] = pod.transmit_rate;
    }
    for (const auto& name : trace.node_names) collector_.add_node(name);
    if (descheduler_s_ > 0) {
      evictions_.emplace(kReEvictionWindow_s / params.time_scale, descheduler_s_);
      rebalance_ = {
          .target_points = collector_config_.rebalance.target_points,
          .low_points = collector_config_.rebalance.low_points,
          .min_pod_age_ms = scaled_ms(collector_config_.rebalance.min_pod_age.value, params)};
      if (policy.kind == PolicyKind::netscore)
        labeler_.emplace(rebalance_, ms(rebalance_rest(collector_config_)));
    }
  }

  RunResult run() {
    for (const auto pod : trace_.initial_pods) place_initial(pod);
    for (std::uint32_t i = 0; i < trace_.events.size(); ++i)
      push(trace_.events[i].t, EventKind::trace, i);
    push(params_.scrape_s / 2 - ready_lead_s(params_), EventKind::scrape);
    push(-params_.scrape_s / 4, EventKind::refresh);  // the first after the second scrape
    push(0, EventKind::sample);
    push(-params_.scrape_s / 4, EventKind::tick);
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
    clock_.set(kLongAgo_s);
    placed_ms_[pod] = clock_.wall_ms();
    collector_.pod_bound(object(pod));
    if (pod_series_) {
      pod_counters_.start(pod, pod_name(pod), to_ms(-ready_lead_s(params_)), pod_rate_[pod],
                          pod_transmit_[pod], 1e6);
    }
  }

  // The pod as the API server serves it: to the collector's watch once bound, to the extender
  // while pending.
  testing::kube::Pod object(std::uint32_t pod) const {
    const PodSpec& spec = trace_.pods[pod];
    testing::kube::Pod out = kube_json::trace_pod(trace_, spec, owner_uid(spec));
    out.name = out.uid = pod_uid(pod);
    if (node_of_pod(pod) >= 0) {
      out.node = names_[static_cast<std::size_t>(node_of_pod(pod))];
      out.phase = "Running";
    }
    return out;
  }

  int node_of_pod(std::uint32_t pod) const { return placement_.node_of_pod()[pod]; }

  // An evicted pod's replacement is a pod of its own to the collector.
  std::string pod_uid(std::uint32_t pod) const {
    const std::string& name = trace_.pods[pod].name;
    return incarnation_[pod] == 0 ? name : name + "-r" + std::to_string(incarnation_[pod]);
  }

  std::string pod_name(std::uint32_t pod) const { return trace_.pods[pod].ns + "/" + pod_uid(pod); }

  void handle(const Event& e) {
    clock_.set(e.t);
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
          collector_.pod_bound(object(e.arg));
        }
        break;
      case EventKind::visible_remove:
        collector_.pod_deleted(pod_uid(e.arg));
        break;
      case EventKind::tick:
        collector_.tick();
        push(e.t + tick_s_, EventKind::tick);
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
        recorded_utilisation(collector_config_.query, node_series(), to_ms(t), rebalance_range_ms_);
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
  }

  void evict(std::uint32_t pod, double t) {
    const auto node = static_cast<std::size_t>(node_of_pod(pod));
    set_rate(node, t, pod, -1);
    if (pod_series_) pod_counters_.stop(pod);
    collector_.pod_deleted(pod_uid(pod));
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
        placement_.pick(pod, [&](std::uint32_t p) { return extender_scores(p); });
    placement_.bind(pod, node);
    if (evictions_ && incarnation_[pod] > 0)
      evictions_->landed(pod, node, hot_nodes(nodes_traffic_.receive(), params_.hot_factor)[node]);
    push(t + params_.visible_s, EventKind::visible_bind, pod);
    // Its containers start and the next scrape after that is the first to count its traffic.
    push(std::floor(t / params_.scrape_s) * params_.scrape_s + params_.scrape_s, EventKind::traffic,
         pod);
    if (!pending_.empty()) push(t + params_.cycle_s, EventKind::schedule);
  }

  // What the extender answers, by the extender's own handler on the table the collector published.
  std::optional<std::vector<std::int64_t>> extender_scores(std::uint32_t pod) {
    if (!extender_.fresh(clock_.mono_ns())) ++unscored_pods_;
    return extender_.prioritize(testing::kube::to_json(object(pod), true), clock_.mono_ns());
  }

  // What Prometheus holds of the nodes.
  NodeSeries node_series() const {
    return {.names = names_,
            .receive = nodes_traffic_.receive_series(),
            .transmit = nodes_traffic_.transmit_series(),
            .speed = speed_};
  }

  void measure(double t) {
    collector_.refresh(
        answer_node_query(collector_config_.query, node_series(), to_ms(t), range_ms_));
    if (labeler_) {
      const auto read = recorded_utilisation(collector_config_.query, node_series(), to_ms(t),
                                             rebalance_range_ms_);
      model::NodeUtilisation utilisation;
      for (std::size_t n = 0; n < nodes_; ++n) utilisation[names_[n]] = read[n];
      labeler_->round(reader_, collector_.state(), collector_config_, utilisation, to_ms(t));
    }
  }

  // Before the trace, when the pods alive at 0 were placed.
  static constexpr double kLongAgo_s = -1e6;

  const Trace& trace_;
  const Policy& policy_;
  const LoopParams& params_;
  std::size_t nodes_;
  Config collector_config_, extender_config_;
  double refresh_s_;
  std::int64_t range_ms_;
  std::int64_t rebalance_range_ms_;  // NETSCORE_REBALANCE_WINDOW
  VirtualClock clock_;
  testing::ScratchTable table_;
  std::vector<std::string> names_;
  std::uint32_t unscored_pods_ = 0;
  std::vector<double> speed_;  // per node, bytes/s; 0: no speed series
  NodeCounters nodes_traffic_;
  std::vector<bool> started_, removed_;
  std::vector<double> pod_rate_, pod_transmit_;  // per pod, its true rates now (drift included)
  std::vector<std::int64_t> placed_ms_;          // per pod, when the collector saw it bound
  bool pod_series_;                              // whether the collector reads traffic per pod
  PodCounters pod_counters_;
  VirtualCollector collector_;
  VirtualExtender extender_;
  ScoreTableReader reader_;  // the rebalance labeler's
  double tick_s_;            // the publisher's decay tick
  std::deque<std::uint32_t> pending_;
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
