#include "bench/closed_loop/virtual_time/cluster_traffic.h"

#include "bench/closed_loop/virtual_time/virtual_clock.h"

namespace netscore::sim {

ClusterTraffic::ClusterTraffic(const Trace& trace, double t0_s, std::int64_t node_keep_ms,
                               std::int64_t pod_keep_ms, bool pod_series)
    : trace_(trace),
      t0_s_(t0_s),
      pod_series_(pod_series),
      nodes_(trace.background, trace.background_transmit, trace.counter_start,
             trace.counter_start_transmit, t0_s, node_keep_ms),
      pod_counters_(pod_keep_ms),
      speed_(trace.speed),
      running_(trace.pods.size(), false),
      rate_(trace.pods.size()),
      transmit_rate_(trace.pods.size()) {
  for (const auto& pod : trace.pods) {
    rate_[pod.id] = pod.rate;
    transmit_rate_[pod.id] = pod.transmit_rate;
  }
}

void ClusterTraffic::add(std::size_t node, double t, std::uint32_t pod, double sign) {
  nodes_.add(node, t, sign * rate_[pod], sign * transmit_rate_[pod]);
}

void ClusterTraffic::start_settled(std::uint32_t pod, std::size_t node, const std::string& name) {
  running_[pod] = true;
  add(node, t0_s_, pod, 1);
  // Running for long: its counters' first sample already holds what it sent.
  if (pod_series_) {
    pod_counters_.start(pod, name, VirtualClock::wall_ms(t0_s_), rate_[pod], transmit_rate_[pod],
                        1e6);
  }
}

void ClusterTraffic::start(std::uint32_t pod, std::size_t node, const std::string& name, double t) {
  running_[pod] = true;
  add(node, t, pod, 1);
  if (pod_series_)
    pod_counters_.start(pod, name, VirtualClock::wall_ms(t), rate_[pod], transmit_rate_[pod]);
}

void ClusterTraffic::stop(std::uint32_t pod, std::size_t node, double t) {
  if (running_[pod]) add(node, t, pod, -1);
  running_[pod] = false;
  if (pod_series_) pod_counters_.stop(pod);
}

void ClusterTraffic::rescale(std::uint32_t pod, double factor, double t, int node) {
  if (node >= 0) add(static_cast<std::size_t>(node), t, pod, -1);
  rate_[pod] *= factor;
  transmit_rate_[pod] *= factor;
  if (node < 0) return;
  add(static_cast<std::size_t>(node), t, pod, 1);
  if (pod_series_)
    pod_counters_.set_rates(pod, VirtualClock::wall_ms(t), rate_[pod], transmit_rate_[pod]);
}

void ClusterTraffic::scrape(double t) {
  nodes_.scrape(t, VirtualClock::wall_ms(t));
  if (pod_series_) pod_counters_.scrape(VirtualClock::wall_ms(t));
}

std::vector<double> ClusterTraffic::running_receive() const {
  std::vector<double> running;
  for (std::uint32_t pod = 0; pod < running_.size(); ++pod)
    if (running_[pod]) running.push_back(rate_[pod]);
  return running;
}

NodeSeries ClusterTraffic::node_series() const {
  return {.names = trace_.node_names,
          .receive = nodes_.receive_series(),
          .transmit = nodes_.transmit_series(),
          .speed = speed_};
}

}  // namespace netscore::sim
