// RealtimeCluster on a real control plane (control_plane.h): the trace's objects created through
// the API as their controllers and kubelets would leave them, kube-scheduler's bindings learned
// from a watch.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <random>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench/closed_loop/processes/control_plane.h"
#include "bench/closed_loop/processes/control_plane_files.h"
#include "bench/closed_loop/processes/kube_objects_json.h"
#include "bench/closed_loop/processes/pod_binding_watch.h"
#include "bench/closed_loop/real_time/realtime_cluster.h"
#include "bench/prometheus_text/exposition.h"
#include "tests/support/eventually.h"

namespace netscore::sim {
namespace {

using namespace std::chrono_literals;

// The profile of the shipped configuration; the harness' own pods name a scheduler nobody runs,
// so that kube-scheduler leaves them to the harness.
constexpr std::string_view kSchedulerName = "default-scheduler";
constexpr std::string_view kHarnessScheduler = "netscore-closed-loop-harness";
// Initial pods have run this long: their traffic is wholly in any window the collector queries.
constexpr std::int64_t kInitialAge_s = 7200;
constexpr auto kWatchCatchUp = 60s;

void check(const std::string& error) {
  if (!error.empty()) throw std::runtime_error(error);
}

// The loop's creations, deletions and bindings, sent in order by one thread of their own: a burst
// of thirty pods takes the API server a tenth of a second or more, which the loop's sampling and
// the bindings it learns must not wait for. Order is kept, so a pod is created before it is bound
// or deleted.
class ApiSender {
 public:
  struct Request {
    enum class Method { post, remove, patch } method = Method::post;
    std::string path, body;
    long expected = 201;
  };

  explicit ApiSender(const KubeApi& api) : api_(api), thread_([this] { run(); }) {}
  ApiSender(const ApiSender&) = delete;
  ApiSender& operator=(const ApiSender&) = delete;
  // What is still queued is dropped: the run is over.
  ~ApiSender() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  void send(Request request) {
    {
      const std::lock_guard lock(mutex_);
      queue_.push_back(std::move(request));
    }
    wake_.notify_one();
  }

  unsigned failed() const { return failed_; }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      const Request request = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      const auto reply =
          request.method == Request::Method::post    ? api_.post(request.path, request.body)
          : request.method == Request::Method::patch ? api_.patch(request.path, request.body)
                                                     : api_.remove(request.path);
      if (reply.status != request.expected) ++failed_;
      lock.lock();
    }
  }

  const KubeApi& api_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Request> queue_;
  bool stopping_ = false;
  std::atomic<unsigned> failed_{0};
  std::thread thread_;  // last: started once the members it uses exist
};

class KubeCluster final : public RealtimeCluster {
 public:
  KubeCluster(const Trace& trace, const KubeClusterOptions& options)
      : trace_(trace),
        deploy_dir_(options.deploy_dir),
        control_plane_(options.kube_bin, read_file(options.deploy_dir + "/base/rbac.yaml")),
        api_(control_plane_.admin()),
        initial_(trace.initial_pods.begin(), trace.initial_pods.end()),
        names_(trace.pods.size()),
        replacement_names_(trace.params.seed) {
    for (std::size_t n = 0; n < trace.node_names.size(); ++n) node_index_[trace.node_names[n]] = n;
    for (std::uint32_t p = 0; p < trace.pods.size(); ++p) {
      names_[p] = trace.pods[p].name;
      pod_index_[key(p)] = p;
    }
    if (options.descheduler) descheduler_.emplace(*options.descheduler, control_plane_);
    create_nodes();
    create_namespaces();
    create_owners();
    watch_.emplace(control_plane_.admin_kube());
  }

  Environment collector_env() const override {
    Environment env = control_plane_.collector_env();
    if (descheduler_) env.merge(descheduler_->collector_env());
    return env;
  }

  void create_initial(std::uint32_t pod, std::size_t node) override {
    const PodSpec& spec = trace_.pods[pod];
    const auto created = api_.post(pods_path(spec.ns), pod_object(pod, trace_.node_names[node]));
    if (created.status != 201) {
      ++failed_requests_;
      if (first_refusal_.empty()) {
        first_refusal_ = fmt::format("creating pod {}/{}: http status {}: {}", spec.ns, spec.name,
                                     created.status, created.body.substr(0, 300));
      }
      return;
    }
    if (api_.patch(pod_path(pod) + "/status",
                   kube_json::pod_running_status(now_s() - kInitialAge_s))
            .status != 200)
      ++failed_requests_;
  }

  void create(std::uint32_t pod) override {
    sender_->send({.path = pods_path(trace_.pods[pod].ns), .body = pod_object(pod, {})});
  }

  void remove(std::uint32_t pod) override {
    removed_.insert(pod);
    sender_->send({.method = ApiSender::Request::Method::remove,
                   .path = pod_path(pod),
                   .body = {},
                   .expected = 200});
  }

  void bind(std::uint32_t pod, std::size_t node) override {
    sender_->send({.path = pod_path(pod) + "/binding",
                   .body = kube_json::binding(names_[pod], trace_.node_names[node])});
  }

  bool schedules(const Policy& policy) const override {
    return policy.kind == PolicyKind::scheduler || policy.kind == PolicyKind::netscore;
  }

  void start_scheduler(const Policy& policy, const std::string& extender_url) override {
    const std::string shipped =
        read_file(deploy_dir_ + "/overlays/control-plane/kube-scheduler-config.yaml");
    const bool extender = policy.kind == PolicyKind::netscore;
    control_plane_.start_scheduler(
        scheduler_config(
            shipped, {.kubeconfig = control_plane_.scheduler_kubeconfig(),
                      .extender_url = extender ? std::optional(extender_url) : std::nullopt,
                      .weight = policy.weight > 0 ? std::optional(policy.weight) : std::nullopt}),
        trace_.node_names.size());
    scheduler_name_ = kSchedulerName;
    // The watch is how the loop learns kube-scheduler's bindings: it must have replayed the pods
    // bound so far before the first one is created.
    std::set<std::uint32_t> seen;
    const bool caught_up = testing::eventually(
        [&] {
          for (const auto& [pod, node] : wait_for_bindings(Clock::now() + 50ms)) {
            if (initial_.contains(pod)) seen.insert(pod);
          }
          return seen.size() == initial_.size();
        },
        kWatchCatchUp);
    if (!caught_up) {
      throw std::runtime_error(fmt::format(
          "the pod watch replayed {} of {} bound pods: {}{}", seen.size(), initial_.size(),
          watch_->last_failure(),
          first_refusal_.empty() ? "" : "; the API server refused some: " + first_refusal_));
    }
  }

  std::vector<std::pair<std::uint32_t, std::size_t>> wait_for_bindings(
      Clock::time_point until) override {
    std::vector<std::pair<std::uint32_t, std::size_t>> out;
    for (const auto& binding : watch_->take(until)) {
      const auto pod = pod_index_.find(binding.key);
      const auto node = node_index_.find(binding.node);
      // An earlier incarnation's events (an evicted pod's, replaced since) are not the pod's.
      if (pod == pod_index_.end() || node == node_index_.end() || binding.key != key(pod->second))
        continue;
      if (binding.terminating) {
        if (descheduler_) finish_and_replace(pod->second);
        continue;
      }
      if (descheduler_ && !initial_.contains(pod->second) && running_.insert(binding.key).second)
        mark_running(pod->second);
      out.emplace_back(pod->second, node->second);
    }
    return out;
  }

  std::optional<double> descheduler_interval_s() const override {
    return descheduler_ ? std::optional(descheduler_->interval_s()) : std::nullopt;
  }

  void start_descheduler(const std::string& prometheus_ca) override {
    if (descheduler_) descheduler_->start(prometheus_ca);
  }

  std::vector<std::uint32_t> take_evicted() override { return std::exchange(evicted_, {}); }

  std::string summary() const override {
    std::string out = fmt::format("{} failed API requests, {} failed pod watches",
                                  failed_requests_ + sender_->failed(), watch_->failures());
    const std::string metrics = control_plane_.scheduler_metrics();
    if (metrics.empty()) return out;
    const auto samples = prometheus_text::parse(metrics);
    const auto attempts = [&](std::string_view result) {
      return prometheus_text::value(
                 samples, "scheduler_schedule_attempts_total",
                 {{"profile", std::string(kSchedulerName)}, {"result", std::string(result)}})
          .value_or(0);
    };
    out += fmt::format(", kube-scheduler attempts: {} scheduled, {} unschedulable, {} error",
                       attempts("scheduled"), attempts("unschedulable"), attempts("error"));
    return descheduler_ ? out + "\n  " + descheduler_->summary() : out;
  }

 private:
  std::string key(std::uint32_t pod) const { return trace_.pods[pod].ns + "/" + names_[pod]; }
  static std::string pods_path(const std::string& ns) {
    return "/api/v1/namespaces/" + ns + "/pods";
  }
  std::string pod_path(std::uint32_t pod) const {
    return pods_path(trace_.pods[pod].ns) + "/" + names_[pod];
  }

  // As the kubelet reports a pod it started: Running since now, so that the descheduler's
  // minPodAge counts from here.
  void mark_running(std::uint32_t pod) {
    sender_->send({.method = ApiSender::Request::Method::patch,
                   .path = pod_path(pod) + "/status",
                   .body = kube_json::pod_running_status(now_s()),
                   .expected = 200});
  }

  // The pod got a deletionTimestamp through the Eviction API. Its kubelet would stop it and
  // confirm the deletion: deleted at once. Its ReplicaSet controller would create another pod from
  // the template: the same trace pod under a new name, to be scheduled.
  void finish_and_replace(std::uint32_t pod) {
    if (removed_.contains(pod)) return;
    sender_->send({.method = ApiSender::Request::Method::remove,
                   .path = pod_path(pod),
                   .body = {},
                   .expected = 200});
    evicted_.push_back(pod);
    if (trace_.pods[pod].owner_kind != OwnerKind::replicaset) {
      removed_.insert(pod);
      return;
    }
    do {
      names_[pod] = trace_.pods[pod].replicaset + "-" + replacement_suffix();
    } while (pod_index_.contains(key(pod)));
    pod_index_[key(pod)] = pod;
    sender_->send({.path = pods_path(trace_.pods[pod].ns), .body = pod_object(pod, {})});
  }

  // Five characters of the alphabet Kubernetes names pods with (rand.SafeEncodeString's).
  std::string replacement_suffix() {
    static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < 5; ++i) out += alphabet[replacement_names_() % alphabet.size()];
    return out;
  }

  std::string pod_object(std::uint32_t pod, const std::string& node) const {
    const PodSpec& spec = trace_.pods[pod];
    const std::string owner_uid =
        spec.owner_kind == OwnerKind::none ? std::string() : owner_uid_.at(owner_key(spec));
    auto object = kube_json::trace_pod(trace_, spec, owner_uid);
    object.name = names_[pod];
    object.node = node;
    object.scheduler_name = scheduler_name_;
    return kube_json::pod(object);
  }

  static std::tuple<OwnerKind, std::string, std::string> owner_key(const PodSpec& spec) {
    return {spec.owner_kind, spec.ns, spec.replicaset};
  }

  void create_nodes() {
    for (const auto& name : trace_.node_names) check(register_node(api_, name, now_s()));
  }

  void create_namespaces() {
    std::set<std::string> namespaces;
    for (const auto& pod : trace_.pods) namespaces.insert(pod.ns);
    for (const auto& ns : namespaces) check(create_namespace(api_, ns));
  }

  void create_owners() {
    std::map<std::tuple<OwnerKind, std::string, std::string>, std::pair<std::uint32_t, unsigned>>
        owners;  // -> a pod of it, its pods
    for (std::uint32_t p = 0; p < trace_.pods.size(); ++p) {
      if (trace_.pods[p].owner_kind == OwnerKind::none) continue;
      auto [it, added] = owners.try_emplace(owner_key(trace_.pods[p]), p, 0);
      ++it->second.second;
    }
    for (const auto& [owner, first_and_count] : owners) {
      check(create_owner(api_, trace_, trace_.pods[first_and_count.first], first_and_count.second,
                         owner_uid_[owner]));
    }
  }

  const Trace& trace_;
  std::string deploy_dir_;
  ControlPlane control_plane_;
  KubeApi api_;
  std::set<std::uint32_t> initial_;
  std::unordered_map<std::string, std::size_t> node_index_;
  // By namespace/name, every incarnation of a pod (an evicted pod's replacements).
  std::unordered_map<std::string, std::uint32_t> pod_index_;
  std::vector<std::string> names_;  // per pod, its current incarnation's name
  std::mt19937_64 replacement_names_;
  std::set<std::string> running_;       // incarnations marked running
  std::set<std::uint32_t> removed_;     // deleted by the trace or evicted for good
  std::vector<std::uint32_t> evicted_;  // since the last take_evicted
  std::map<std::tuple<OwnerKind, std::string, std::string>, std::string> owner_uid_;
  std::string scheduler_name_{kHarnessScheduler};
  unsigned failed_requests_ = 0;
  std::string first_refusal_;  // the first initial pod the API server refused, and why
  std::optional<PodBindingWatch> watch_;
  std::optional<DeschedulerProcess> descheduler_;  // stopped before the API server
  // Last: stopped first, before the API it sends through.
  std::unique_ptr<ApiSender> sender_ = std::make_unique<ApiSender>(api_);
};

}  // namespace

std::unique_ptr<RealtimeCluster> kube_cluster(const Trace& trace,
                                              const KubeClusterOptions& options) {
  return std::make_unique<KubeCluster>(trace, options);
}

}  // namespace netscore::sim
