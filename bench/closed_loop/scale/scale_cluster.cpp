#include "bench/closed_loop/scale/scale_cluster.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench/closed_loop/processes/control_plane.h"
#include "bench/closed_loop/processes/control_plane_files.h"
#include "bench/closed_loop/processes/kube_objects_json.h"

namespace netscore::sim {
namespace {

constexpr const char* kNamespace = "scale";

// work(i) for every i in [0, count) on `threads` threads; throws the first error work returns
// (an empty string is success) once every thread has stopped.
void parallel(std::size_t count, unsigned threads,
              const std::function<std::string(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::string first_error;
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(1U, threads); ++t) {
      pool.emplace_back([&] {
        for (std::size_t i = next++; i < count; i = next++) {
          std::string error = work(i);
          if (error.empty()) continue;
          std::lock_guard lock(mutex);
          if (first_error.empty()) first_error = std::move(error);
          next = count;
        }
      });
    }
  }
  if (!first_error.empty()) throw std::runtime_error(first_error);
}

std::string pods_path() {
  return fmt::format("/api/v1/namespaces/{}/pods", kNamespace);
}

}  // namespace

ScaleCluster::ScaleCluster(ScaleClusterOptions options)
    : options_(std::move(options)),
      control_plane_(options_.kube_bin, read_file(options_.deploy_dir + "/base/rbac.yaml")),
      api_(control_plane_.admin()) {
  parallel(options_.nodes.size(), options_.threads,
           [&](std::size_t n) { return register_node(api_, options_.nodes[n], now_s()); });
  if (auto error = create_namespace(api_, kNamespace); !error.empty())
    throw std::runtime_error(error);
}

std::string ScaleCluster::pod_body(const PodSpec& spec, const std::string& owner_uid,
                                   const std::string& node) const {
  auto object = kube_json::trace_pod(trace_, spec, owner_uid);
  object.node = node;
  object.scheduler_name = "default-scheduler";
  return kube_json::pod(object);
}

void ScaleCluster::create_backlog(unsigned pods, double replicaset_share, unsigned per_replicaset) {
  const auto owned = static_cast<unsigned>(replicaset_share * pods);
  const unsigned sets = (owned + per_replicaset - 1) / std::max(1U, per_replicaset);
  trace_ = {};
  for (unsigned s = 0; s < sets; ++s)
    trace_.deployments.push_back({.name = fmt::format("web-{}", s)});
  trace_.deployments.push_back({.name = "ci-runner", .kind = OwnerKind::none});
  for (unsigned p = 0; p < pods; ++p) {
    PodSpec spec;
    spec.id = p;
    spec.ns = kNamespace;
    if (p < owned) {
      spec.deployment = p / per_replicaset;
      spec.template_hash = fmt::format("{:08x}", 0x5d8f9c00U + spec.deployment);
      spec.replicaset = trace_.deployments[spec.deployment].name + "-" + spec.template_hash;
      spec.name = fmt::format("{}-{:05x}", spec.replicaset, p);
    } else {
      spec.owner_kind = OwnerKind::none;
      spec.deployment = sets;
      spec.replicaset = "ci-runner";
      spec.name = fmt::format("ci-runner-{:05x}", p);
    }
    trace_.pods.push_back(std::move(spec));
  }
  std::vector<std::string> uids(sets);
  parallel(sets, options_.threads, [&](std::size_t s) {
    const PodSpec& first = trace_.pods[s * per_replicaset];
    return create_owner(api_, trace_, first, std::min(per_replicaset, owned - first.id), uids[s]);
  });
  parallel(pods, options_.threads, [&](std::size_t p) {
    const PodSpec& spec = trace_.pods[p];
    const std::string uid = p < owned ? uids[p / per_replicaset] : std::string();
    return unexpected_status(api_.post(pods_path(), pod_body(spec, uid, {})), 201,
                             "creating pod " + spec.name);
  });
}

void ScaleCluster::start_scheduler(const std::optional<std::string>& extender_url,
                                   std::optional<unsigned> client_qps) {
  const std::string shipped =
      read_file(options_.deploy_dir + "/overlays/control-plane/kube-scheduler-config.yaml");
  std::string config = scheduler_config(
      shipped, {.kubeconfig = control_plane_.scheduler_kubeconfig(), .extender_url = extender_url});
  if (client_qps) {
    constexpr std::string_view kSection = "\nclientConnection:\n";
    const auto at = config.find(kSection);
    if (at == std::string::npos)
      throw std::runtime_error("no clientConnection in the scheduler configuration");
    config.insert(at + kSection.size(), fmt::format("  qps: {0}\n  burst: {0}\n", *client_qps));
  }
  control_plane_.start_scheduler(config, options_.nodes.size());
}

}  // namespace netscore::sim
