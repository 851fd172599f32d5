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
#include "bench/closed_loop/virtual_time/cluster_traffic.h"
#include "bench/closed_loop/virtual_time/descheduler_model.h"
#include "bench/closed_loop/virtual_time/node_query.h"
#include "bench/closed_loop/virtual_time/virtual_clock.h"
#include "bench/closed_loop/virtual_time/virtual_collector.h"
#include "bench/closed_loop/virtual_time/virtual_descheduler.h"
#include "bench/closed_loop/virtual_time/virtual_extender.h"
#include "bench/closed_loop/workload/pod_owner.h"
#include "collector/pipeline/publisher.h"
#include "common/pod_annotations.h"
#include "tests/support/fake_kube_objects.h"
#include "tests/support/scratch_table.h"

namespace netscore::sim {
namespace {

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
  visible_create,
  cluster_publish,
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
        collector_config_(load(Component::collector, policy, params)),
        extender_config_(load(Component::extender, policy, params)),
        refresh_s_(static_cast<double>(ms(collector_config_.refresh_interval)) / 1000.0),
        table_("closed-loop"),
        traffic_(trace, -ready_lead_s(params),
                 std::max(ms(collector_config_.query.time_range),
                          ms(rebalance_window(collector_config_))) +
                     3 * std::llround(params.scrape_s * 1000),
                 std::max(ms(collector_config_.query.time_range),
                          ms(pod_traffic_recent_range(collector_config_))) +
                     3 * std::llround(params.scrape_s * 1000),
                 labelled_pod_series(params) && collector_config_.pod_traffic.enabled),
        collector_(collector_config_, clock_, table_.str(), traffic_.pods(),
                   labelled_pod_series(params), params.publish_s,
                   {.query_ms = params.query_s * 1000, .series_ms = params.series_s * 1000}),
        extender_(extender_config_, table_.str(), trace.node_names),
        tick_s_(std::chrono::duration<double>(collector::Publisher::Options{}.decay_tick).count()),
        removed_(trace.pods.size(), false),
        placed_ms_(trace.pods.size(), 0),
        incarnation_(trace.pods.size(), 0),
        recorder_(params.sample_s, params.hot_factor, params.hot_utilisation),
        placement_(trace, policy, params) {
    for (const auto& name : trace.node_names) collector_.add_node(name);
    if (params.descheduler_interval_s > 0)
      descheduler_.emplace(collector_config_, policy, params, table_.str());
  }

  RunResult run() {
    for (const auto pod : trace_.initial_pods) place_initial(pod);
    collector_.publish_deferred();
    for (std::uint32_t i = 0; i < trace_.events.size(); ++i)
      push(trace_.events[i].t, EventKind::trace, i);
    push(params_.scrape_s / 2 - ready_lead_s(params_), EventKind::scrape);
    push(-params_.scrape_s / 4, EventKind::refresh);  // the first after the second scrape
    push(0, EventKind::sample);
    push(-params_.scrape_s / 4, EventKind::tick);
    if (descheduler_) push(0, EventKind::deschedule);
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
    if (descheduler_) out.evictions = descheduler_->log().summary();
    out.unscored_pods = unscored_pods_;
    return out;
  }

 private:
  void push(double t, EventKind kind, std::uint32_t arg = 0) {
    queue_.push({.t = t, .seq = seq_++, .kind = kind, .arg = arg});
  }

  void handle(const Event& e) {
    clock_.set(e.t);
    switch (e.kind) {
      case EventKind::trace:
        on_trace(e.arg, e.t);
        break;
      case EventKind::visible_create:
        for (const auto pod : trace_.events[e.arg].pods) enqueue(pod, e.t);
        break;
      case EventKind::cluster_publish:
        collector_.publish_deferred();
        break;
      case EventKind::scrape:
        traffic_.scrape(e.t);
        push(e.t + params_.scrape_s, EventKind::scrape);
        break;
      case EventKind::refresh:
        refresh(e.t);
        push(e.t + refresh_s_, EventKind::refresh);
        break;
      case EventKind::schedule:
        schedule_next(e.t);
        break;
      case EventKind::visible_bind:
        on_visible_bind(e.arg, e.t);
        break;
      case EventKind::visible_remove:
        deferred_publish(collector_.pod_deleted(pod_uid(e.arg)), e.t);
        break;
      case EventKind::tick:
        collector_.tick();
        push(e.t + tick_s_, EventKind::tick);
        break;
      case EventKind::traffic:
        on_traffic(e.arg, e.t);
        break;
      case EventKind::sample:
        sample(e.t);
        push(e.t + params_.sample_s, EventKind::sample);
        break;
      case EventKind::deschedule:
        deschedule(e.t);
        push(e.t + descheduler_->interval_s(), EventKind::deschedule);
        break;
    }
  }

  // Pods alive at 0 were placed long ago, the same for every policy, already visible, their
  // traffic settled in every window.
  void place_initial(std::uint32_t pod) {
    const std::size_t best = placement_.initial_node(pod);
    placement_.bind(pod, best);
    traffic_.start_settled(pod, best, pod_name(pod));
    clock_.set(kLongAgo_s);
    placed_ms_[pod] = clock_.wall_ms();
    // Published together once all are placed.
    static_cast<void>(collector_.pod_bound(object(pod)));
  }

  void deferred_publish(std::optional<double> in_s, double t) {
    if (in_s) push(t + *in_s, EventKind::cluster_publish);
  }

  void on_trace(std::uint32_t index, double t) {
    const TraceEvent& event = trace_.events[index];
    if (event.kind == TraceEvent::Kind::create) {
      // kube-scheduler learns of a new pod by its watch, as the collector of a binding or a
      // deletion: a ReplicaSet's replacement, created as its predecessor is deleted, is scored
      // once the collector can know that predecessor gone (the oracles know it at once).
      push(t + params_.visible_s, EventKind::visible_create, index);
      return;
    }
    if (event.kind == TraceEvent::Kind::rescale) {
      traffic_.rescale(event, t, [this](std::uint32_t pod) { return node_of_pod(pod); });
      return;
    }
    const std::uint32_t pod = event.pods.front();
    removed_[pod] = true;
    const int node = node_of_pod(pod);
    if (node < 0) return;  // still pending: skipped when its turn comes
    traffic_.stop(pod, static_cast<std::size_t>(node), t);
    placement_.remove(pod);
    push(t + params_.visible_s, EventKind::visible_remove, pod);
  }

  void enqueue(std::uint32_t pod, double t) {
    const bool idle = pending_.empty();
    pending_.push_back(pod);
    if (idle) push(t, EventKind::schedule);
  }

  void schedule_next(double t) {
    while (!pending_.empty() && removed_[pending_.front()]) pending_.pop_front();
    if (pending_.empty()) return;
    const std::uint32_t pod = pending_.front();
    pending_.pop_front();
    const std::size_t node =
        placement_.pick(pod, [&](std::uint32_t p) { return extender_scores(p); });
    placement_.bind(pod, node);
    if (descheduler_ && incarnation_[pod] > 0) {
      descheduler_->log().landed(t, pod, node,
                                 hot_nodes(traffic_.receive(), params_.hot_factor)[node]);
    }
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

  void on_visible_bind(std::uint32_t pod, double t) {
    if (removed_[pod]) return;
    placed_ms_[pod] = to_ms(t);
    deferred_publish(collector_.pod_bound(object(pod)), t);
  }

  void on_traffic(std::uint32_t pod, double t) {
    const int node = node_of_pod(pod);
    if (removed_[pod] || traffic_.running(pod) || node < 0) return;
    traffic_.start(pod, static_cast<std::size_t>(node), pod_name(pod), t);
  }

  void refresh(double t) {
    collector_.refresh(answer_node_query(collector_config_.query, traffic_.node_series(), to_ms(t),
                                         ms(collector_config_.query.time_range)));
    if (descheduler_) descheduler_->label(collector_.state(), traffic_, to_ms(t));
  }

  void sample(double t) {
    recorder_.add(traffic_.receive());
    if (descheduler_) {
      descheduler_->log().sample(
          t, hot_nodes(traffic_.receive(), params_.hot_factor),
          unavoidably_hot_nodes(traffic_.receive(), traffic_.running_receive(), trace_.background,
                                params_.hot_factor));
    }
    if (placement_.with_speeds()) {
      recorder_.add_links(traffic_.receive(), traffic_.transmit(), traffic_.speed());
      recorder_.add_pods(placement_.node_pods(), traffic_.speed());
    }
  }

  // The descheduler evicts; the harness plays the kubelet and the ReplicaSet controller at once.
  void deschedule(double t) {
    std::vector<EvictablePod> evictable;
    for (std::uint32_t pod = 0; pod < trace_.pods.size(); ++pod) {
      const int node = node_of_pod(pod);
      if (node < 0 || removed_[pod] || !traffic_.running(pod)) continue;
      if (trace_.pods[pod].owner_kind != OwnerKind::replicaset) continue;
      if (!descheduler_->evictable(placed_ms_[pod], pod_name(pod), to_ms(t))) continue;
      evictable.push_back({.pod = pod, .node = static_cast<std::size_t>(node)});
    }
    for (const auto pod : descheduler_->cycle(traffic_, evictable, to_ms(t))) evict(pod, t);
  }

  void evict(std::uint32_t pod, double t) {
    const auto node = static_cast<std::size_t>(node_of_pod(pod));
    traffic_.stop(pod, node, t);
    // netscore's descheduler evicts only the pods the collector labelled, and the collector's
    // watch had the label before the eviction.
    if (policy_.kind == PolicyKind::netscore) {
      testing::kube::Pod labelled = object(pod);
      labelled.labels[std::string(kRebalanceLabel)] = std::string(kRebalanceLabelValue);
      deferred_publish(collector_.pod_bound(labelled), t);
    }
    deferred_publish(collector_.pod_deleted(pod_uid(pod)), t);
    placement_.unbind(pod);
    descheduler_->log().evicted(t, pod, trace_.pods[pod].deployment, node);
    ++incarnation_[pod];
    enqueue(pod, t);
  }

  // The pod as the API server serves it: to the collector's watch once bound, to the extender
  // while pending.
  testing::kube::Pod object(std::uint32_t pod) const {
    const PodSpec& spec = trace_.pods[pod];
    testing::kube::Pod out = kube_json::trace_pod(trace_, spec, owner_uid(spec));
    out.name = out.uid = pod_uid(pod);
    if (node_of_pod(pod) >= 0) {
      out.node = trace_.node_names[static_cast<std::size_t>(node_of_pod(pod))];
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

  // Before the trace, when the pods alive at 0 were placed.
  static constexpr double kLongAgo_s = -1e6;

  const Trace& trace_;
  const Policy& policy_;
  const LoopParams& params_;
  Config collector_config_, extender_config_;
  double refresh_s_;
  VirtualClock clock_;
  testing::ScratchTable table_;
  ClusterTraffic traffic_;
  VirtualCollector collector_;
  VirtualExtender extender_;
  double tick_s_;  // the publisher's decay tick
  // Per pod: deleted by the trace; when the collector saw it bound; its evictions so far.
  std::vector<bool> removed_;
  std::vector<std::int64_t> placed_ms_;
  std::vector<std::uint32_t> incarnation_;
  std::deque<std::uint32_t> pending_;
  std::uint32_t unscored_pods_ = 0;
  BalanceRecorder recorder_;
  Placement placement_;
  std::optional<VirtualDescheduler> descheduler_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
};

}  // namespace

RunResult run_policy(const Trace& trace, const Policy& policy, const LoopParams& params) {
  return Loop(trace, policy, params).run();
}

}  // namespace netscore::sim
