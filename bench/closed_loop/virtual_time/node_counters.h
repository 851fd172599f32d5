#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench/closed_loop/virtual_time/promql.h"

// Each node's true traffic in virtual time and the node_exporter counters Prometheus scrapes from
// it, both directions: a node's rate changes at a moment (a pod's traffic starts, stops or
// drifts), its counter integrates the rate, and a scrape appends every counter to its series.
namespace netscore::sim {

class NodeCounters {
 public:
  // Rates start at `receive` / `transmit` (bytes/s per node, the backgrounds) and counters at
  // `counter_receive` / `counter_transmit` at `t0_s`. A series keeps the samples less than
  // `keep_ms` older than its latest scrape: no read looks further back.
  NodeCounters(std::vector<double> receive, std::vector<double> transmit,
               std::vector<double> counter_receive, std::vector<double> counter_transmit,
               double t0_s, std::int64_t keep_ms);

  // From `t_s` on the node's rates change by these (negative: traffic that stops).
  void add(std::size_t node, double t_s, double receive, double transmit);
  // One sample of every node's counters at `t_s`, stamped `t_ms`.
  void scrape(double t_s, std::int64_t t_ms);

  const std::vector<double>& receive() const { return receive_; }
  const std::vector<double>& transmit() const { return transmit_; }
  const std::vector<Series>& receive_series() const { return receive_series_; }
  const std::vector<Series>& transmit_series() const { return transmit_series_; }

 private:
  void advance(std::size_t node, double t_s);

  std::vector<double> receive_, transmit_;
  std::vector<double> counter_receive_, counter_transmit_;
  std::vector<double> counted_to_s_;
  std::vector<Series> receive_series_, transmit_series_;
  std::int64_t keep_ms_;
};

}  // namespace netscore::sim
