#include "bench/closed_loop/real_time/realtime.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "bench/closed_loop/placement/placement.h"
#include "bench/closed_loop/placement/scaled_environment.h"
#include "bench/closed_loop/placement/timed_event.h"
#include "bench/closed_loop/processes/netscore_processes.h"
#include "bench/closed_loop/processes/traffic_exporter.h"
#include "bench/closed_loop/real_time/realtime_cluster.h"
#include "bench/closed_loop/reports/balance_metrics.h"
#include "bench/closed_loop/reports/eviction_log.h"
#include "bench/closed_loop/processes/control_plane_files.h"
#include "bench/closed_loop/processes/descheduler_process.h"
#include "collector/pipeline/print_rules.h"
#include "common/config.h"
#include "tests/support/eventually.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kStartup{60};
// A pod of the same workload evicted again within ten minutes of cluster time is churn.
constexpr double kReEvictionWindow_s = 600;

std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

enum class EventKind { trace, schedule, sample };

// A descheduler evicts what netscore's collector nominates when netscore runs (its labelSelector
// matches the collector's label), and chooses among every evictable pod otherwise.
KubeClusterOptions nominating(KubeClusterOptions kube, const Policy& policy) {
  if (kube.descheduler) kube.descheduler->nominating = policy.kind == PolicyKind::netscore;
  return kube;
}

using Event = TimedEvent<EventKind>;

class RealtimeLoop {
 public:
  RealtimeLoop(const Trace& trace, const Policy& policy, const LoopParams& params,
               const RealtimeBinaries& binaries, const KubeClusterOptions& kube)
      : trace_(trace),
        policy_(policy),
        params_(params),
        binaries_(binaries),
        nodes_(trace.node_names.size()),
        cluster_(kube_cluster(trace, nominating(kube, policy))),
        external_scheduler_(cluster_->schedules(policy)),
        exporter_(trace.node_names, {trace.background, trace.counter_start},
                  {trace.background_transmit, trace.counter_start_transmit}, trace.speed,
                  params.pod_series),
        removed_(trace.pods.size(), false),
        drift_(trace.pods.size(), 1.0),
        created_at_s_(trace.pods.size(), 0),
        recorder_(params.sample_s, params.hot_factor, params.hot_utilisation),
        placement_(trace, policy, params) {}

  RunResult run() {
    for (const auto pod : trace_.initial_pods) place_initial(pod);
    const auto descheduler_interval = cluster_->descheduler_interval_s();
    Environment collector_env = cluster_->collector_env();
    if (descheduler_interval) {
      certificate_.emplace();
      collector_env["NETSCORE_PROMETHEUS_CA_FILE"] = certificate_->cert_file();
      const Config scaled = load_config(Component::collector, {},
                                        scaled_environment(policy_.env, params_.time_scale));
      evictions_.emplace(kReEvictionWindow_s / params_.time_scale, *descheduler_interval,
                         table_lag_s(scaled, params_.scrape_s));
    }
    prometheus_.emplace(exporter_.target(), params_.scrape_s, params_.pod_series,
                        certificate_ ? std::optional(certificate_->tls()) : std::nullopt);
    if (policy_.kind == PolicyKind::netscore) {
      netscore_.emplace(binaries_, policy_, params_.time_scale, prometheus_->url(), collector_env,
                        nodes_);
    }
    if (external_scheduler_) cluster_->start_scheduler(policy_, netscore_ ? netscore_->url() : "");
    if (!testing::eventually([&] { return exporter_.scrapes() >= 2; }, kStartup))
      throw std::runtime_error("prometheus never scraped the traffic exporter");
    if (descheduler_interval) start_descheduler(collector_env);
    start_ = Clock::now();
    for (std::uint32_t i = 0; i < trace_.events.size(); ++i)
      push(trace_.events[i].t, EventKind::trace, i);
    push(0, EventKind::sample);
    while (!queue_.empty() && queue_.top().t < trace_.params.duration_s) {
      const Event e = queue_.top();
      queue_.pop();
      const auto due =
          start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(e.t));
      while (Clock::now() < due) {
        if (stop_requested) throw std::runtime_error("interrupted");
        for (const auto& [pod, node] :
             cluster_->wait_for_bindings(std::min(due, Clock::now() + 100ms)))
          on_bound(pod, node);
        for (const auto pod : cluster_->take_evicted()) on_evicted(pod);
      }
      max_late_s_ = std::max(max_late_s_, elapsed_s() - e.t);
      handle(e);
    }
    std::cerr << fmt::format("{}: {} scrapes, events up to {:.3f} s late", policy_.name,
                             exporter_.scrapes(), max_late_s_);
    if (external_scheduler_) report_external_bindings();
    if (netscore_) {
      const auto observed = netscore_->observe();
      std::cerr << fmt::format(
          ", the extender answered {:.0f} prioritize calls, the collector's "
          "watch {}",
          observed.prioritize_answered, observed.cluster_synced ? "synced" : "NOT synced");
    }
    std::cerr << "\n  " << cluster_->summary();
    if (evictions_) std::cerr << "\n  " << describe(evictions_->summary());
    std::cerr << "\n";
    return {.policy = policy_.name,
            .balance = recorder_.result(),
            .bursts = burst_spread(trace_, placement_.node_of_pod()),
            .peak_to_mean = recorder_.peak_to_mean_series(30)};
  }

 private:
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void push(double t, EventKind kind, std::uint32_t arg = 0) {
    queue_.push({.t = t, .seq = seq_++, .kind = kind, .arg = arg});
  }

  int node_of_pod(std::uint32_t pod) const { return placement_.node_of_pod()[pod]; }

  TrafficExporter::PodTraffic traffic(std::uint32_t pod, std::size_t node) const {
    const PodSpec& spec = trace_.pods[pod];
    return {.ns = spec.ns,
            .name = spec.name,
            .node = node,
            .receive = spec.rate * drift_[pod],
            .transmit = spec.transmit_rate * drift_[pod]};
  }

  // The utilisation the descheduler reads, recorded by the rule --print-rules gives for the
  // collector's settings (the same query as the collector's, scaled window included), then the
  // descheduler once every node has a value.
  void start_descheduler(const Environment& collector_env) {
    prometheus_->set_rules(rules_document(print_rules(
        binaries_,
        collector_environment(policy_, params_.time_scale, prometheus_->url(), collector_env))));
    const std::string query =
        "/api/v1/query?query=count(" + std::string(collector::kUtilisationRecord) + ")";
    const auto recorded = [&] {
      rapidjson::Document answer;
      answer.Parse(prometheus_->get(query).body.c_str());
      const auto* value = rapidjson::Pointer("/data/result/0/value/1").Get(answer);
      return value != nullptr && value->IsString() &&
             std::string(value->GetString()) == std::to_string(nodes_);
    };
    if (!testing::eventually(recorded, kStartup))
      throw std::runtime_error(std::string("prometheus never recorded ") +
                               std::string(collector::kUtilisationRecord) + " for every node");
    cluster_->start_descheduler(certificate_->cert_file());
  }

  std::vector<double> running_pod_receive() const {
    std::vector<double> running;
    for (std::uint32_t pod = 0; pod < trace_.pods.size(); ++pod)
      if (!removed_[pod] && node_of_pod(pod) >= 0)
        running.push_back(trace_.pods[pod].rate * drift_[pod]);
    return running;
  }

  // The descheduler evicted it and the cluster finished it: its traffic stops; a ReplicaSet's
  // pod comes back as a replacement to be placed.
  void on_evicted(std::uint32_t pod) {
    const int node = node_of_pod(pod);
    if (removed_[pod] || node < 0) return;
    exporter_.stop_pod(pod);
    placement_.unbind(pod);
    evictions_->evicted(elapsed_s(), pod, trace_.pods[pod].deployment,
                        static_cast<std::size_t>(node));
    if (trace_.pods[pod].owner_kind != OwnerKind::replicaset) {
      removed_[pod] = true;
      return;
    }
    created_at_s_[pod] = elapsed_s();
    if (external_scheduler_) return;
    const bool idle = pending_.empty();
    pending_.push_back(pod);
    if (idle) push(elapsed_s(), EventKind::schedule);
  }

  void landed(std::uint32_t pod, std::size_t node) {
    if (evictions_)
      evictions_->landed(elapsed_s(), pod, node,
                         hot_nodes(exporter_.rates().receive, params_.hot_factor)[node]);
  }

  // As the virtual-time level: the same for every policy, bound long before any window so that
  // their traffic is measured, not expected.
  void place_initial(std::uint32_t pod) {
    const std::size_t best = placement_.initial_node(pod);
    placement_.bind(pod, best);
    exporter_.add_running(pod, traffic(pod, best));
    cluster_->create_initial(pod, best);
  }

  // A binding kube-scheduler made, seen by the watch; the harness' own and those of pods deleted
  // meanwhile are skipped.
  void on_bound(std::uint32_t pod, std::size_t node) {
    if (!external_scheduler_ || removed_[pod] || node_of_pod(pod) >= 0) return;
    landed(pod, node);
    placement_.bind(pod, node);
    exporter_.start_pod(pod, traffic(pod, node));
    const double latency_s = elapsed_s() - created_at_s_[pod];
    binding_latency_total_s_ += latency_s;
    binding_latency_max_s_ = std::max(binding_latency_max_s_, latency_s);
    ++external_bindings_;
  }

  void report_external_bindings() const {
    unsigned unbound = 0;
    for (const auto pod : created_) unbound += !removed_[pod] && node_of_pod(pod) < 0;
    std::cerr << fmt::format(
        ", {} bound by kube-scheduler ({:.3f} s mean, {:.3f} s max from "
        "creation to the watch), {} still pending",
        external_bindings_,
        external_bindings_ ? binding_latency_total_s_ / external_bindings_ : 0.0,
        binding_latency_max_s_, unbound);
  }

  void handle(const Event& e) {
    switch (e.kind) {
      case EventKind::trace:
        on_trace(trace_.events[e.arg], e.t);
        break;
      case EventKind::schedule:
        schedule_next();
        break;
      case EventKind::sample: {
        const auto rates = exporter_.rates();
        recorder_.add(rates.receive);
        if (evictions_) {
          evictions_->sample(e.t, hot_nodes(rates.receive, params_.hot_factor),
                             unavoidably_hot_nodes(rates.receive, running_pod_receive(),
                                                   trace_.background, params_.hot_factor));
        }
        if (placement_.with_speeds()) {
          recorder_.add_links(rates.receive, rates.transmit, trace_.speed);
          recorder_.add_pods(placement_.node_pods(), trace_.speed);
        }
        push(e.t + params_.sample_s, EventKind::sample);
        break;
      }
    }
  }

  void on_trace(const TraceEvent& event, double t) {
    if (event.kind == TraceEvent::Kind::create) {
      const bool idle = pending_.empty();
      for (const auto pod : event.pods) {
        cluster_->create(pod);
        created_at_s_[pod] = elapsed_s();
        created_.push_back(pod);
        if (!external_scheduler_) pending_.push_back(pod);
      }
      if (idle && !pending_.empty()) push(t, EventKind::schedule);
      return;
    }
    if (event.kind == TraceEvent::Kind::rescale) {
      for (const auto pod : event.pods) {
        drift_[pod] *= event.factor;
        exporter_.rescale_pod(pod, event.factor);
      }
      return;
    }
    const std::uint32_t pod = event.pods.front();
    removed_[pod] = true;
    cluster_->remove(pod);
    exporter_.stop_pod(pod);
    // A pod still pending is skipped when its turn comes.
    placement_.remove(pod);
  }

  void schedule_next() {
    while (!pending_.empty() && removed_[pending_.front()]) pending_.pop_front();
    if (pending_.empty()) return;
    const std::uint32_t pod = pending_.front();
    pending_.pop_front();
    // Only the policies kube-scheduler cannot express come here, and none of them asks the
    // extender.
    const std::size_t node = placement_.pick(pod, {});
    cluster_->bind(pod, node);
    landed(pod, node);
    placement_.bind(pod, node);
    exporter_.start_pod(pod, traffic(pod, node));
    if (!pending_.empty()) push(elapsed_s() + params_.cycle_s, EventKind::schedule);
  }

  const Trace& trace_;
  const Policy& policy_;
  const LoopParams& params_;
  const RealtimeBinaries& binaries_;
  std::size_t nodes_;
  // Declared in start order: the processes stop before what they talk to goes away.
  std::unique_ptr<RealtimeCluster> cluster_;
  bool external_scheduler_;  // kube-scheduler binds, the harness learns it from the cluster
  TrafficExporter exporter_;
  std::optional<LoopbackCertificate> certificate_;  // Prometheus' with a descheduler
  std::optional<ScrapingPrometheus> prometheus_;
  std::optional<NetscoreProcesses> netscore_;
  std::vector<bool> removed_;
  std::vector<double> drift_;           // per pod, what its traffic has been multiplied by so far
  std::vector<double> created_at_s_;    // per pod, seconds into the run
  std::vector<std::uint32_t> created_;  // pods created through the API, in order
  std::deque<std::uint32_t> pending_;
  BalanceRecorder recorder_;
  std::optional<EvictionLog> evictions_;  // with a descheduler
  Placement placement_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  Clock::time_point start_;
  double max_late_s_ = 0;
  unsigned external_bindings_ = 0;
  double binding_latency_total_s_ = 0, binding_latency_max_s_ = 0;
};

}  // namespace

void stop_on_signals() {
  const auto request = [](int) { stop_requested = true; };
  std::signal(SIGINT, request);
  std::signal(SIGTERM, request);
}

RunResult run_policy_realtime(const Trace& trace, const Policy& policy, const LoopParams& params,
                              const RealtimeBinaries& binaries, const KubeClusterOptions& kube) {
  return RealtimeLoop(trace, policy, params, binaries, kube).run();
}

}  // namespace netscore::sim
