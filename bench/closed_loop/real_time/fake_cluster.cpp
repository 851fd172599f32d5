// RealtimeCluster on the in-process fake API server (tests/support/fake_kube_apiserver.h).
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/closed_loop/processes/kube_objects_json.h"
#include "bench/closed_loop/workload/pod_owner.h"
#include "bench/closed_loop/real_time/realtime_cluster.h"
#include "tests/support/fake_kube_apiserver.h"

namespace netscore::sim {
namespace {

namespace kube = testing::kube;

class FakeCluster final : public RealtimeCluster {
 public:
  explicit FakeCluster(const Trace& trace) : trace_(trace) {
    for (const auto& name : trace.node_names) api_.put_node(name);
  }

  Environment collector_env() const override { return {{"NETSCORE_KUBE_API_URL", api_.url()}}; }

  void create_initial(std::uint32_t pod, std::size_t node) override {
    kube::Pod object = pod_object(pod);
    object.node = trace_.node_names[node];
    object.phase = "Running";
    object.created_s = static_cast<std::int64_t>(std::time(nullptr)) - 7200;
    object.scheduled_s = object.created_s;
    api_.create_pod(std::move(object));
  }

  bool create(std::uint32_t pod) override {
    api_.create_pod(pod_object(pod));
    return true;
  }

  void remove(std::uint32_t pod) override {
    api_.delete_pod(trace_.pods[pod].ns, trace_.pods[pod].name);
  }

  bool bind(std::uint32_t pod, std::size_t node) override {
    const PodSpec& spec = trace_.pods[pod];
    return api_.bind_pod(spec.ns, spec.name, trace_.node_names[node]) == 201;
  }

  std::optional<std::string> pod_json(std::uint32_t pod) const override {
    const auto object = api_.pod(trace_.pods[pod].ns, trace_.pods[pod].name);
    if (!object) return std::nullopt;
    return kube::to_json(*object, true);
  }

  bool schedules(const Policy&) const override { return false; }
  void start_scheduler(const Policy&, const std::string&) override {}

  std::vector<std::pair<std::uint32_t, std::size_t>> wait_for_bindings(
      Clock::time_point until) override {
    std::this_thread::sleep_until(until);
    return {};
  }

  std::string summary() const override { return {}; }

 private:
  kube::Pod pod_object(std::uint32_t pod) const {
    const PodSpec& spec = trace_.pods[pod];
    kube::Pod object{.ns = spec.ns,
                     .name = spec.name,
                     .labels = {{"app", trace_.deployments[spec.deployment].name}}};
    if (!spec.template_hash.empty()) object.labels.emplace("pod-template-hash", spec.template_hash);
    object.owner = kube_json::owner_reference(spec.owner_kind, spec.replicaset, owner_uid(spec));
    return object;
  }

  const Trace& trace_;
  testing::FakeKubeApiServer api_;
};

}  // namespace

std::unique_ptr<RealtimeCluster> fake_cluster(const Trace& trace) {
  return std::make_unique<FakeCluster>(trace);
}

}  // namespace netscore::sim
