// netscore-burst-check: the herd test's burst through the real kube-scheduler. Equal nodes already
// run different numbers of identical pods (1 kB/s receive each, served live by the traffic
// exporter and scraped by a real Prometheus); a burst of identical pods without an owner is
// created at once through a real kube-apiserver, kube-scheduler (the shipped configuration, with
// or without the extender) places them, and the placement is compared with water-filling, what
// placing one pod at a time with fresh metrics gives. Each run starts a fresh control plane:
// kube-scheduler breaks ties at random, so one run says little.
#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/placement/run_flags.h"
#include "bench/closed_loop/processes/netscore_processes.h"
#include "bench/closed_loop/processes/traffic_exporter.h"
#include "bench/closed_loop/real_time/realtime_cluster.h"
#include "bench/flags/flags.h"
#include "tests/support/eventually.h"
#include "tests/support/herd_model.h"

using namespace netscore::sim;
namespace herd = netscore::testing::herd;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr auto kAllBound = 120s;

// Nine quiet nodes among eleven busy ones: water-filling puts a 50-pod burst on exactly the nine,
// so that a policy that spreads too eagerly shows as well as one that piles up.
herd::Cluster nine_quiet_nodes() {
  herd::Cluster c = herd::twenty_nodes();
  c.initial_pods = {2, 3, 2, 4, 3, 2, 3, 4, 2, 12, 11, 13, 12, 11, 12, 13, 11, 12, 13, 12};
  return c;
}

// The layout's pods as a trace: the running ones (Trace::initial_pods, in namespace "running")
// first, node by node, then the burst's, all without an owner.
Trace burst_trace(const herd::Cluster& cluster, unsigned burst) {
  Trace trace;
  const std::size_t nodes = cluster.names.size();
  trace.node_names = cluster.names;
  trace.background.assign(nodes, 0);
  trace.background_transmit.assign(nodes, 0);
  trace.counter_start_transmit.assign(nodes, 0);
  trace.speed.assign(nodes, 0);
  trace.deployments = {{.name = "running", .kind = OwnerKind::none},
                       {.name = "runner", .kind = OwnerKind::none}};
  const auto add = [&](std::string ns, std::string name, std::uint32_t deployment,
                       std::uint32_t burst_id) {
    const auto id = static_cast<std::uint32_t>(trace.pods.size());
    trace.pods.push_back({.id = id,
                          .owner_kind = OwnerKind::none,
                          .ns = std::move(ns),
                          .name = std::move(name),
                          .deployment = deployment,
                          .replicaset = trace.deployments[deployment].name,
                          .template_hash = {},
                          .burst = burst_id,
                          .rate = herd::kBytesPerSecondPerPod,
                          .transmit_rate = 0,
                          .created_s = 0,
                          .deleted_s = 1e18});
    return id;
  };
  for (std::size_t n = 0; n < nodes; ++n) {
    // As if the node had counted a day at its rate: raw counters of realistic magnitude.
    trace.counter_start.push_back(86400 * herd::kBytesPerSecondPerPod * cluster.initial_pods[n]);
    for (unsigned p = 0; p < cluster.initial_pods[n]; ++p) {
      trace.initial_pods.push_back(
          add("running", fmt::format("{}-pod-{}", cluster.names[n], p), 0, kInitialBurst));
    }
  }
  for (unsigned p = 0; p < burst; ++p) add("default", fmt::format("runner-{:05}", p), 1, 0);
  return trace;
}

struct Outcome {
  std::vector<unsigned> placed;  // per node, the burst's pods
  double bound_s = 0;            // the first creation to the watch seeing the last binding
};

Outcome run_once(const herd::Cluster& cluster, unsigned burst, const Policy& policy,
                 const LoopParams& loop, const RealtimeBinaries& binaries,
                 const KubeClusterOptions& kube) {
  const Trace trace = burst_trace(cluster, burst);
  const std::size_t nodes = trace.node_names.size();
  auto api = kube_cluster(trace, kube);
  TrafficExporter exporter(trace.node_names, {trace.background, trace.counter_start},
                           {trace.background_transmit, trace.counter_start_transmit}, trace.speed);
  std::vector<int> node_of(trace.pods.size(), -1);
  std::size_t p = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    for (unsigned i = 0; i < cluster.initial_pods[n]; ++i, ++p) {
      exporter.add_running(trace.initial_pods[p], n, herd::kBytesPerSecondPerPod, 0);
      api->create_initial(trace.initial_pods[p], n);
    }
  }
  ScrapingPrometheus prometheus(exporter.target(), loop.scrape_s);
  std::optional<NetscoreProcesses> netscore;
  if (policy.kind == PolicyKind::netscore) {
    netscore.emplace(binaries, policy, loop.time_scale, prometheus.url(), api->collector_env(),
                     nodes);
  }
  api->start_scheduler(policy, netscore ? netscore->url() : "");
  if (!netscore::testing::eventually([&] { return exporter.scrapes() >= 3; }, 60s))
    throw std::runtime_error("prometheus never scraped the traffic exporter");

  Outcome out{.placed = std::vector<unsigned>(nodes, 0)};
  const auto first = static_cast<std::uint32_t>(trace.initial_pods.size());
  const auto start = Clock::now();
  for (std::uint32_t pod = first; pod < trace.pods.size(); ++pod) api->create(pod);
  unsigned bound = 0;
  const auto deadline = start + kAllBound;
  while (bound < burst && Clock::now() < deadline) {
    for (const auto& [pod, node] : api->wait_for_bindings(std::min(deadline, Clock::now() + 1s))) {
      if (pod < first || node_of[pod] >= 0) continue;
      node_of[pod] = static_cast<int>(node);
      // As the closed loop: the pod's traffic starts one scrape after its binding.
      exporter.start_pod(pod, node, herd::kBytesPerSecondPerPod, 0);
      ++out.placed[node];
      ++bound;
    }
  }
  out.bound_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (bound < burst) {
    throw std::runtime_error(fmt::format("{} of {} pods bound within {} s: {}", bound, burst,
                                         kAllBound.count(), api->summary()));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  namespace po = netscore::flags::po;
  KubeClusterOptions kube{.kube_bin = {}, .deploy_dir = NETSCORE_DEPLOY_DIR};
  LoopParams loop;
  loop.time_scale = 1;  // the shipped collector timings: a burst is over before the next refresh
  unsigned runs = 3, burst = 50;
  std::string layout = "twenty";
  std::vector<Policy> policies;
  po::options_description options;
  options.add_options()("kube-bin", netscore::flags::text(kube.kube_bin),
                        "kube-apiserver and kube-scheduler v1.26 (required)")(
      "deploy-dir", netscore::flags::text(kube.deploy_dir), "the project's deploy/")(
      "runs", netscore::flags::number(runs), "runs per policy, each on a fresh control plane")(
      "burst", netscore::flags::number(burst), "pods in the burst")(
      "layout", po::value<std::string>(&layout)->notifier([](const std::string& name) {
        if (name != "twenty" && name != "nine-quiet")
          throw po::error("--layout=" + name + ": expected twenty or nine-quiet");
      }),
      "twenty or nine-quiet");
  add_policies_option(options, policies);
  add_loop_options(options, loop);
  if (const auto stop = netscore::flags::parse(
          argc, argv, options,
          "usage: netscore-burst-check --kube-bin=DIR [--deploy-dir=DIR] [--runs=3]\n"
          "         [--burst=50] [--layout=twenty|nine-quiet] [--policies=NAME,...]\n"
          "         [loop flags: --scrape-s, --time-scale (default 1), --shipped-weight]\n"
          "Per policy (default: kube-scheduler alone, netscore defaults) and run, a fresh\n"
          "control plane; prints the burst's pods per node, pods away from water-filling\n"
          "and the nodes used.\n",
          std::cout, std::cerr))
    return *stop;
  if (kube.kube_bin.empty()) {
    std::cerr << "--kube-bin=DIR is required\n";
    return 2;
  }
  if (policies.empty()) select_policies("kube-scheduler alone,netscore defaults", policies);
  const herd::Cluster cluster = layout == "twenty" ? herd::twenty_nodes() : nine_quiet_nodes();
  const std::vector<unsigned> ideal = herd::water_filling(cluster.initial_pods, burst);
  std::cout << fmt::format("layout {}: running pods {}; water-filling {} on {} nodes\n", layout,
                           cluster.initial_pods, ideal, herd::nodes_used(ideal));
  const RealtimeBinaries binaries{.collector = NETSCORE_COLLECTOR_BINARY,
                                  .extender = NETSCORE_EXTENDER_BINARY};
  curl_global_init(CURL_GLOBAL_DEFAULT);  // before any thread: the pod watch has its own
  std::cout << "| policy | run | pods away | nodes used | burst's pods per node | all bound in |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto& policy : policies) {
    for (unsigned run = 1; run <= runs; ++run) {
      try {
        const Outcome out = run_once(cluster, burst, policy, loop, binaries, kube);
        std::cout << fmt::format("| {} | {} | {} | {} (water-filling {}) | {} | {:.3f} s |\n",
                                 policy.name, run, herd::pods_away(out.placed, ideal),
                                 herd::nodes_used(out.placed), herd::nodes_used(ideal), out.placed,
                                 out.bound_s)
                  << std::flush;
      } catch (const std::exception& e) {
        std::cerr << policy.name << ", run " << run << ": " << e.what() << "\n";
        return 1;
      }
    }
  }
  return 0;
}
