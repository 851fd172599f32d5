#include "bench/closed_loop/realtime.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <chrono>
#include <cmath>
#include <ctime>
#include <deque>
#include <functional>
#include <iostream>
#include <optional>
#include <queue>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include "bench/closed_loop/oracles.h"
#include "bench/closed_loop/scheduler_model.h"
#include "bench/closed_loop/timed_event.h"
#include "bench/closed_loop/traffic_exporter.h"
#include "common/config.h"
#include "tests/support/binary_process.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_kube_apiserver.h"
#include "tests/support/http_client.h"
#include "tests/support/netscore_binaries.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/scratch_table.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;
using testing::BinaryProcess;
namespace kube = testing::kube;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kStartup{60};
constexpr std::chrono::seconds kStop{10};
constexpr std::chrono::seconds kRequestTimeout{5};

std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

std::int64_t scaled_ms(const PromDuration& duration, double time_scale) {
  return std::max<std::int64_t>(
      1, std::llround(static_cast<double>(duration.value.count()) / time_scale));
}

std::vector<std::string> as_list(const Environment& env) {
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

// The two binaries as a cluster runs them, on one scratch table; started only for netscore
// policies, stopped by PID before Prometheus and the API server they talk to go away.
class NetscoreProcesses {
 public:
  NetscoreProcesses(const RealtimeBinaries& binaries, const Policy& policy, double time_scale,
                    const std::string& prometheus_url, const std::string& api_url,
                    std::size_t nodes) {
    // The virtual-time level divides the collector's refresh and window by time_scale; the same
    // here, on the policy's values where it sets them.
    const Config shipped = load_config(Component::collector, {}, policy.env);
    Environment env = policy.env;
    env["NETSCORE_REFRESH_INTERVAL"] =
        duration_text(scaled_ms(shipped.refresh_interval, time_scale));
    env["NETSCORE_TIME_RANGE"] = duration_text(scaled_ms(shipped.query.time_range, time_scale));
    env["NETSCORE_PROMETHEUS_URL"] = prometheus_url;
    env["NETSCORE_INTERFACE"] = "eth0";
    env["NETSCORE_KUBE_API_URL"] = api_url;
    env["NETSCORE_SHM_NAME"] = table_.str();
    collector_.emplace(BinaryProcess::Options{.path = binaries.collector, .env = as_list(env)});
    env["NETSCORE_LISTEN"] = "127.0.0.1:0";
    extender_.emplace(BinaryProcess::Options{.path = binaries.extender, .env = as_list(env)});
    url_ = testing::extender_base_url(*extender_, kStartup);
    // Every node measured and the watch synced: the first pod is scored as later ones are.
    const auto ready = [&] {
      if (testing::http_get(url_ + "/readyz", 2s).status != 200) return false;
      rapidjson::Document table;
      table.Parse(testing::http_get(url_ + "/table", 2s).body.c_str());
      return table.IsObject() && table.HasMember("table") && table.HasMember("cluster") &&
             table["table"]["valid_count"].GetUint() == nodes &&
             table["cluster"]["synced"].GetBool();
    };
    if (url_.empty() || !testing::eventually(ready, kStartup)) {
      throw std::runtime_error(
          "netscore not ready:\ncollector: " + testing::log_tail(collector_->log_path()) +
          "\nextender: " + testing::log_tail(extender_->log_path()));
    }
  }
  ~NetscoreProcesses() {
    extender_->stop(kStop);
    collector_->stop(kStop);
  }
  NetscoreProcesses(const NetscoreProcesses&) = delete;
  NetscoreProcesses& operator=(const NetscoreProcesses&) = delete;

  const std::string& url() const { return url_; }

 private:
  testing::ScratchTable table_{"realtime"};  // outlives both processes
  std::optional<BinaryProcess> collector_, extender_;
  std::string url_;
};

enum class EventKind { trace, schedule, sample };

using Event = TimedEvent<EventKind>;

class RealtimeLoop {
 public:
  RealtimeLoop(const Trace& trace, const Policy& policy, const LoopParams& params,
               const RealtimeBinaries& binaries)
      : trace_(trace),
        policy_(policy),
        params_(params),
        binaries_(binaries),
        nodes_(trace.node_names.size()),
        exporter_(trace.node_names, {trace.background, trace.counter_start},
                  {trace.background_transmit, trace.counter_start_transmit}, trace.speed),
        with_speeds_(
            std::any_of(trace.speed.begin(), trace.speed.end(), [](double s) { return s > 0; })),
        bound_rate_(trace.background),
        bound_transmit_(trace.background_transmit),
        node_pods_(nodes_, 0),
        node_of_pod_(trace.pods.size(), -1),
        removed_(trace.pods.size(), false),
        recorder_(params.sample_s, params.hot_factor, params.hot_utilisation),
        scheduler_(params.topology_spread, params.tie_seed),
        mean_pod_(mean_pod_rates(trace)) {
    node_names_json_ = "[";
    for (std::size_t n = 0; n < nodes_; ++n) {
      api_.put_node(trace.node_names[n]);
      index_[trace.node_names[n]] = n;
      node_names_json_ += (n ? ",\"" : "\"") + trace.node_names[n] + "\"";
    }
    node_names_json_ += "]";
  }

  RunResult run() {
    for (const auto pod : trace_.initial_pods) place_initial(pod);
    prometheus_.emplace(exporter_.target(), params_.scrape_s);
    if (policy_.kind == PolicyKind::netscore) {
      netscore_.emplace(binaries_, policy_, params_.time_scale, prometheus_->url(), api_.url(),
                        nodes_);
    }
    if (!testing::eventually([&] { return exporter_.scrapes() >= 2; }, kStartup))
      throw std::runtime_error("prometheus never scraped the traffic exporter");
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
        std::this_thread::sleep_until(std::min(due, Clock::now() + 100ms));
      }
      max_late_s_ = std::max(max_late_s_, elapsed_s() - e.t);
      handle(e);
    }
    std::cerr << fmt::format(
        "{}: {} scrapes, events up to {:.3f} s late, {} extender failures, {} failed bindings",
        policy_.name, exporter_.scrapes(), max_late_s_, extender_failures_, failed_bindings_);
    if (prioritize_calls_ > 0) {
      std::cerr << fmt::format(", prioritize {:.1f} ms mean, {:.1f} ms max",
                               1e3 * prioritize_total_s_ / prioritize_calls_,
                               1e3 * prioritize_max_s_);
    }
    std::cerr << "\n";
    return {.policy = policy_.name,
            .balance = recorder_.result(),
            .bursts = burst_spread(trace_, node_of_pod_),
            .peak_to_mean = recorder_.peak_to_mean_series(30)};
  }

 private:
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void push(double t, EventKind kind, std::uint32_t arg = 0) {
    queue_.push({.t = t, .seq = seq_++, .kind = kind, .arg = arg});
  }

  kube::Pod pod_object(std::uint32_t pod) const {
    const PodSpec& spec = trace_.pods[pod];
    return {.ns = spec.ns,
            .name = spec.name,
            .labels = {{"app", trace_.deployments[spec.deployment].name},
                       {"pod-template-hash", spec.template_hash}},
            .owner = kube::OwnerReference{
                .kind = "ReplicaSet", .name = spec.replicaset, .uid = "uid-" + spec.replicaset}};
  }

  std::size_t least_utilised(std::uint32_t pod) const {
    return sim::least_utilised(bound_rate_, bound_transmit_, trace_.speed, trace_.pods[pod].rate,
                               trace_.pods[pod].transmit_rate);
  }

  // As the virtual-time level: water-filling on true traffic (on utilisation when the nodes have
  // speeds), the same for every policy, bound long before any window so that their traffic is
  // measured, not expected.
  void place_initial(std::uint32_t pod) {
    const auto best =
        with_speeds_
            ? least_utilised(pod)
            : static_cast<std::size_t>(std::min_element(bound_rate_.begin(), bound_rate_.end()) -
                                       bound_rate_.begin());
    bind(pod, best);
    exporter_.add_running(pod, best, trace_.pods[pod].rate, trace_.pods[pod].transmit_rate);
    kube::Pod object = pod_object(pod);
    object.node = trace_.node_names[best];
    object.phase = "Running";
    object.created_s = static_cast<std::int64_t>(std::time(nullptr)) - 7200;
    object.scheduled_s = object.created_s;
    api_.create_pod(std::move(object));
  }

  void bind(std::uint32_t pod, std::size_t node) {
    node_of_pod_[pod] = static_cast<int>(node);
    ++node_pods_[node];
    bound_rate_[node] += trace_.pods[pod].rate;
    bound_transmit_[node] += trace_.pods[pod].transmit_rate;
    same_set(pod)[node] += 1;
  }

  std::vector<unsigned>& same_set(std::uint32_t pod) {
    auto& same = same_set_[trace_.pods[pod].replicaset];
    same.resize(nodes_);
    return same;
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
        if (with_speeds_) {
          recorder_.add_links(rates.receive, rates.transmit, trace_.speed);
          recorder_.add_pods(node_pods_, trace_.speed);
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
        api_.create_pod(pod_object(pod));
        pending_.push_back(pod);
      }
      if (idle) push(t, EventKind::schedule);
      return;
    }
    const std::uint32_t pod = event.pods.front();
    const PodSpec& spec = trace_.pods[pod];
    removed_[pod] = true;
    api_.delete_pod(spec.ns, spec.name);
    exporter_.stop_pod(pod);
    const int node = node_of_pod_[pod];
    if (node < 0) return;  // still pending: skipped when its turn comes
    const auto n = static_cast<std::size_t>(node);
    --node_pods_[n];
    bound_rate_[n] -= spec.rate;
    bound_transmit_[n] -= spec.transmit_rate;
    same_set(pod)[n] -= 1;
  }

  void schedule_next() {
    while (!pending_.empty() && removed_[pending_.front()]) pending_.pop_front();
    if (pending_.empty()) return;
    const std::uint32_t pod = pending_.front();
    pending_.pop_front();
    const std::size_t node = pick(pod);
    const PodSpec& spec = trace_.pods[pod];
    if (api_.bind_pod(spec.ns, spec.name, trace_.node_names[node]) != 201) ++failed_bindings_;
    bind(pod, node);
    exporter_.start_pod(pod, node, spec.rate, spec.transmit_rate);
    if (!pending_.empty()) push(elapsed_s() + params_.cycle_s, EventKind::schedule);
  }

  std::size_t pick(std::uint32_t pod) {
    std::vector<std::int64_t> total(nodes_, 0);
    switch (policy_.kind) {
      case PolicyKind::fewest_pods:
        return static_cast<std::size_t>(std::min_element(node_pods_.begin(), node_pods_.end()) -
                                        node_pods_.begin());
      case PolicyKind::oracle:
        return static_cast<std::size_t>(std::min_element(bound_rate_.begin(), bound_rate_.end()) -
                                        bound_rate_.begin());
      case PolicyKind::utilisation_oracle:
        return least_utilised(pod);
      case PolicyKind::blind_oracle:
        return sim::least_utilised(bound_rate_, bound_transmit_, trace_.speed,
                                   policy_.blind_price * mean_pod_.receive,
                                   policy_.blind_price * mean_pod_.transmit);
      case PolicyKind::utilisation_scores:
        SchedulerModel::add_extender(
            utilisation_scores(
                bound_rate_, bound_transmit_, trace_.speed,
                policy_.knows_pod ? trace_.pods[pod].rate : policy_.blind_price * mean_pod_.receive,
                policy_.knows_pod ? trace_.pods[pod].transmit_rate
                                  : policy_.blind_price * mean_pod_.transmit,
                load_config(Component::extender, {}, policy_.env).extender.scoring ==
                    ScoringMode::range,
                policy_.full_scale),
            extender_weight(), total);
        [[fallthrough]];
      case PolicyKind::netscore:
        if (policy_.kind == PolicyKind::netscore) add_extender(pod, total);
        [[fallthrough]];
      case PolicyKind::scheduler:
        scheduler_.add_default_plugins(node_pods_, same_set(pod), total);
        break;
    }
    return scheduler_.select_host(total);
  }

  // The shipped configuration's extender is ignorable: a failed call leaves only the default
  // plugins' scores, as kube-scheduler does.
  void add_extender(std::uint32_t pod, std::vector<std::int64_t>& total) {
    const PodSpec& spec = trace_.pods[pod];
    const auto object = api_.pod(spec.ns, spec.name);
    if (!object) {
      ++extender_failures_;
      return;
    }
    const auto sent = Clock::now();
    const auto reply = testing::http_post(
        netscore_->url() + "/prioritize",
        R"({"Pod":)" + kube::to_json(*object, true) + R"(,"NodeNames":)" + node_names_json_ + "}",
        kRequestTimeout);
    const double round_trip_s = std::chrono::duration<double>(Clock::now() - sent).count();
    prioritize_total_s_ += round_trip_s;
    prioritize_max_s_ = std::max(prioritize_max_s_, round_trip_s);
    ++prioritize_calls_;
    rapidjson::Document list;
    list.Parse(reply.body.c_str());
    if (reply.status != 200 || !list.IsArray()) {
      ++extender_failures_;
      return;
    }
    std::vector<std::int64_t> scores(nodes_, 0);
    for (const auto& host : list.GetArray()) {
      if (!host.IsObject() || !host.HasMember("Host") || !host["Host"].IsString() ||
          !host.HasMember("Score") || !host["Score"].IsInt64())
        continue;
      const auto it = index_.find(host["Host"].GetString());
      if (it != index_.end()) scores[it->second] = host["Score"].GetInt64();
    }
    SchedulerModel::add_extender(scores, extender_weight(), total);
  }

  std::int64_t extender_weight() const {
    return policy_.weight > 0 ? policy_.weight : params_.shipped_weight;
  }

  const Trace& trace_;
  const Policy& policy_;
  const LoopParams& params_;
  const RealtimeBinaries& binaries_;
  std::size_t nodes_;
  // Declared in start order: the processes stop before what they talk to goes away.
  testing::FakeKubeApiServer api_;
  TrafficExporter exporter_;
  std::optional<ScrapingPrometheus> prometheus_;
  std::optional<NetscoreProcesses> netscore_;
  std::unordered_map<std::string, std::size_t> index_;
  std::string node_names_json_;
  bool with_speeds_;
  // True traffic once every bound pod runs (the oracles' view), per direction.
  std::vector<double> bound_rate_, bound_transmit_;
  std::vector<unsigned> node_pods_;
  // Pods bound per node, per ReplicaSet (PodTopologySpread's view of the pod's siblings).
  std::unordered_map<std::string, std::vector<unsigned>> same_set_;
  std::vector<int> node_of_pod_;
  std::vector<bool> removed_;
  std::deque<std::uint32_t> pending_;
  BalanceRecorder recorder_;
  SchedulerModel scheduler_;
  PodRates mean_pod_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  Clock::time_point start_;
  double max_late_s_ = 0;
  // The real scheduling cycle is cycle_s plus this: what --cycle-s of the virtual level stands for.
  double prioritize_total_s_ = 0, prioritize_max_s_ = 0;
  unsigned prioritize_calls_ = 0;
  unsigned extender_failures_ = 0, failed_bindings_ = 0;
};

}  // namespace

void stop_on_signals() {
  const auto request = [](int) { stop_requested = true; };
  std::signal(SIGINT, request);
  std::signal(SIGTERM, request);
}

RunResult run_policy_realtime(const Trace& trace, const Policy& policy, const LoopParams& params,
                              const RealtimeBinaries& binaries) {
  return RealtimeLoop(trace, policy, params, binaries).run();
}

}  // namespace netscore::sim
