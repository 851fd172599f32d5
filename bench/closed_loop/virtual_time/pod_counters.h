#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/closed_loop/virtual_time/promql.h"
#include "common/model/placement_ledger.h"

// cAdvisor's per-pod network counters in virtual time, as the real-time level's exporter serves
// them (bench/closed_loop/processes/cadvisor_series.h): each running pod's sandbox counts from 0
// at the moment its traffic starts, is sampled at every scrape, and is gone when the pod is. Read
// as the collector reads them (collector/pipeline/pod_traffic: `sum by (namespace, pod)
// (rate(...[range]))` per direction), rate() evaluated exactly as Prometheus does (promql.h).
namespace netscore::sim {

// One pod's answer to a read.
struct PodRead {
  std::uint32_t pod = 0;
  model::MeasuredPod rates{};
};

class PodCounters {
 public:
  // Samples older than `keep_ms` before the latest scrape are dropped: no read looks further back.
  explicit PodCounters(std::int64_t keep_ms) : keep_ms_(keep_ms) {}

  // The pod's sandbox counts from `t_ms` on at the given bytes/s, sampled then (the scrape that
  // starts its traffic) at 0, or at what it sent by then when it has been running for `running_s`.
  void start(std::uint32_t pod, std::string name, std::int64_t t_ms, double receive,
             double transmit, double running_s = 0);
  // Its traffic changes at `t_ms` (drift): what it counted until then stays.
  void set_rates(std::uint32_t pod, std::int64_t t_ms, double receive, double transmit);
  void stop(std::uint32_t pod);
  // One sample of every running pod's counters at `t_ms`.
  void scrape(std::int64_t t_ms);

  // `function` (rate() or deriv()) over [eval_ms - range_ms, eval_ms] of each pod's series that
  // `wanted` accepts (all without it), in pod order; a direction with fewer than two samples there
  // is not answered (< 0), a pod with neither is left out, as Prometheus returns no series for it.
  std::vector<PodRead> read(std::int64_t eval_ms, std::int64_t range_ms,
                            const std::function<bool(std::uint32_t)>& wanted = {},
                            Function function = Function::rate) const;

  std::size_t running() const { return pods_.size(); }

 private:
  struct Counter {
    std::string name;                  // "namespace/name"
    double receive = 0, transmit = 0;  // bytes/s now
    double received = 0, transmitted = 0;
    std::int64_t counted_to_ms = 0;
    Series receive_series, transmit_series;
  };
  static void advance(Counter& counter, std::int64_t t_ms);

  std::int64_t keep_ms_;
  std::map<std::uint32_t, Counter> pods_;  // ordered: reads are deterministic
};

}  // namespace netscore::sim
