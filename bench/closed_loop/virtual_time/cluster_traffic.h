#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/closed_loop/virtual_time/node_counters.h"
#include "bench/closed_loop/virtual_time/node_query.h"
#include "bench/closed_loop/virtual_time/pod_counters.h"
#include "bench/closed_loop/workload/workload.h"

// What the cluster carries in virtual time and what Prometheus scrapes of it: each node's traffic
// (its background and its running pods') as node_exporter's counters, and with cAdvisor's series
// each running pod's own counters. A pod's traffic starts when its containers do, stops when it is
// deleted or evicted, and follows its workload's drift.
namespace netscore::sim {

class ClusterTraffic {
 public:
  // `t0_s`: when the counters start (the first scrape's lead); series keep `node_keep_ms` and
  // `pod_keep_ms` before their latest scrape. `pod_series`: whether the pods' counters exist.
  ClusterTraffic(const Trace& trace, double t0_s, std::int64_t node_keep_ms,
                 std::int64_t pod_keep_ms, bool pod_series);

  // A pod alive at 0, running on `node` since long before `t0_s`.
  void start_settled(std::uint32_t pod, std::size_t node, const std::string& name);
  // Its traffic starts on `node` at `t`, counted by its sandbox's counters as `name`.
  void start(std::uint32_t pod, std::size_t node, const std::string& name, double t);
  // Its traffic stops at `t` (if it had started); `node` is where it ran.
  void stop(std::uint32_t pod, std::size_t node, double t);
  // A workload's drift at `t`: its pods' rates are multiplied, those running on `node_of(pod)`
  // (>= 0) from `t` on.
  template <class NodeOf>
  void rescale(const TraceEvent& event, double t, NodeOf node_of) {
    for (const auto pod : event.pods) {
      const int node = node_of(pod);
      rescale(pod, event.factor, t, running_[pod] && node >= 0 ? node : -1);
    }
  }
  void scrape(double t);

  bool running(std::uint32_t pod) const { return running_[pod]; }
  // Every running pod's true receive rate.
  std::vector<double> running_receive() const;
  const std::vector<double>& receive() const { return nodes_.receive(); }
  const std::vector<double>& transmit() const { return nodes_.transmit(); }
  const std::vector<double>& speed() const { return speed_; }
  // What Prometheus holds of the nodes.
  NodeSeries node_series() const;
  const PodCounters& pods() const { return pod_counters_; }

 private:
  void rescale(std::uint32_t pod, double factor, double t, int node);
  void add(std::size_t node, double t, std::uint32_t pod, double sign);

  const Trace& trace_;
  double t0_s_;
  bool pod_series_;
  NodeCounters nodes_;
  PodCounters pod_counters_;
  std::vector<double> speed_;  // per node, bytes/s; 0: no speed series
  std::vector<bool> running_;
  std::vector<double> rate_, transmit_rate_;  // per pod, its true rates now (drift included)
};

}  // namespace netscore::sim
