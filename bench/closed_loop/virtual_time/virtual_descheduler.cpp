#include "bench/closed_loop/virtual_time/virtual_descheduler.h"

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "bench/closed_loop/placement/scaled_environment.h"
#include "bench/closed_loop/virtual_time/node_query.h"

namespace netscore::sim {
namespace {

// A pod of the same workload evicted again within ten minutes of cluster time is churn.
constexpr double kReEvictionWindow_s = 600;

// Virtual milliseconds of a duration of the descheduler's, which the time scale divides too.
std::int64_t scaled_ms(std::chrono::milliseconds d, const LoopParams& params) {
  return std::llround(static_cast<double>(d.count()) / params.time_scale);
}

}  // namespace

VirtualDescheduler::VirtualDescheduler(const Config& collector, const Policy& policy,
                                       const LoopParams& params, const std::string& table)
    : collector_(collector),
      interval_s_(params.descheduler_interval_s / params.time_scale),
      window_ms_(rebalance_window(collector).value.count()),
      settings_{.figure = collector.rebalance.figure,
                .target_points = collector.rebalance.target_points,
                .low_points = collector.rebalance.low_points,
                .min_pod_age_ms = scaled_ms(collector.rebalance.min_pod_age.value, params),
                .per_node = static_cast<std::uint32_t>(params.descheduler_per_node)},
      log_(kReEvictionWindow_s / params.time_scale, interval_s_,
           table_lag_s(collector, params.scrape_s)),
      table_({.name = table}) {
  if (policy.kind == PolicyKind::netscore)
    labeler_.emplace(settings_, rebalance_rest(collector).value.count());
}

RecordedLoad VirtualDescheduler::load(const ClusterTraffic& traffic, std::int64_t now_ms) const {
  return recorded_load(collector_.query, settings_.figure, traffic.node_series(), now_ms,
                       window_ms_);
}

void VirtualDescheduler::label(const collector::ClusterState& state, const ClusterTraffic& traffic,
                               std::int64_t now_ms) {
  if (!labeler_) return;
  const RecordedLoad read = load(traffic, now_ms);
  model::LinkLoads loads{.direction = read.direction};
  for (std::size_t n = 0; n < read.load.size(); ++n)
    loads.by_node[traffic.node_series().names[n]] = read.load[n];
  labeler_->round(table_, state, collector_, loads, now_ms);
}

bool VirtualDescheduler::evictable(std::int64_t placed_ms, const std::string& name,
                                   std::int64_t now_ms) const {
  if (now_ms - placed_ms < settings_.min_pod_age_ms) return false;
  return !labeler_ || labeler_->nominated(name);
}

std::vector<std::uint32_t> VirtualDescheduler::cycle(const ClusterTraffic& traffic,
                                                     const std::vector<EvictablePod>& evictable,
                                                     std::int64_t now_ms) const {
  // The recorded series the policy's query reads.
  return descheduler_cycle(model::rebalance_figure(load(traffic, now_ms).load, settings_.figure),
                           evictable,
                           {.target_points = settings_.target_points,
                            .low_points = settings_.low_points,
                            .max_per_node = settings_.per_node});
}

}  // namespace netscore::sim
