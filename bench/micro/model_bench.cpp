// Workload learning's fit (model/workload_learning): one WorkloadLearner::learn, both directions,
// at cluster scale, as the collector runs it once per refresh (collector/kube/cluster_state,
// outside the lock the watchers write under: watcher_bench's BindingDuringFit). Arguments: nodes,
// pods per node; 25 pods per workload. Between fits a fiftieth of the pods move to another node, as
// pods come and go: the fit's terms change. Its figure is read against the same benchmark on
// another build (a change to the fit's steps or measurements), and against the refresh interval it
// must fit in many times over.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "common/model/workload_learning.h"

namespace netscore {
namespace {

constexpr std::uint32_t kPodsPerWorkload = 25;

struct Cluster {
  Cluster(std::size_t nodes, std::size_t pods_per_node)
      : receive(nodes), transmit(nodes), pods(nodes * pods_per_node) {
    std::mt19937_64 random(7);
    std::lognormal_distribution<double> background(13.8, 0.5);  // about 1 MB/s
    std::lognormal_distribution<double> per_pod(12.2, 1.0);     // about 200 kB/s
    std::uniform_int_distribution<std::size_t> node_of(0, nodes - 1);
    workload_rate.resize(pods.size() / kPodsPerWorkload + 1);
    for (double& rate : workload_rate) rate = per_pod(random);
    running.assign(workload_rate.size(), 0);
    for (std::size_t p = 0; p < pods.size(); ++p) {
      const auto workload = static_cast<std::uint32_t>(p / kPodsPerWorkload);
      pods[p] = {.node = static_cast<std::uint32_t>(p % nodes), .workload = workload, .held = 1};
      ++running[workload];
    }
    for (std::size_t n = 0; n < nodes; ++n) receive[n] = transmit[n] = background(random);
    nodes_background = receive;
    move_some(random, node_of);
  }

  // A fiftieth of the pods to another node, and the nodes' rates as those pods now make them.
  void move_some(std::mt19937_64& random, std::uniform_int_distribution<std::size_t>& node_of) {
    for (std::size_t p = random() % 50; p < pods.size(); p += 50)
      pods[p].node = static_cast<std::uint32_t>(node_of(random));
    receive = nodes_background;
    for (const auto& pod : pods) receive[pod.node] += workload_rate[pod.workload];
    transmit = receive;
  }

  model::LearningInput input() const {
    return {.node_rate = receive,
            .node_transmit_rate = transmit,
            .pods = pods,
            .running_pods = running};
  }

  std::vector<double> receive, transmit, nodes_background, workload_rate;
  std::vector<model::HeldPod> pods;
  std::vector<std::uint32_t> running;
};

void BM_Learner_Fit(benchmark::State& state) {
  Cluster cluster(static_cast<std::size_t>(state.range(0)),
                  static_cast<std::size_t>(state.range(1)));
  std::mt19937_64 random(11);
  std::uniform_int_distribution<std::size_t> node_of(0, cluster.receive.size() - 1);
  model::WorkloadLearner learner;
  // A full history of measurements, as after the collector's first refreshes.
  for (int i = 0; i < 12; ++i) learner.learn(cluster.input());
  for (auto _ : state) {
    state.PauseTiming();
    cluster.move_some(random, node_of);
    state.ResumeTiming();
    learner.learn(cluster.input());
  }
  benchmark::DoNotOptimize(learner.rate_per_pod());
  state.counters["pods"] = static_cast<double>(cluster.pods.size());
}

BENCHMARK(BM_Learner_Fit)->Args({1000, 15})->Args({5000, 15})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace netscore

BENCHMARK_MAIN();
