#pragma once

#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/closed_loop/virtual_time/pod_counters.h"
#include "bench/closed_loop/virtual_time/virtual_clock.h"
#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/pipeline/pod_traffic.h"
#include "collector/pipeline/publisher.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "common/table/score_table_writer.h"
#include "tests/support/fake_kube_objects.h"

// The collector in virtual time: the product's ClusterState fed the pod and node objects a watch
// would deliver (parsed by the collector's own parse_pod / parse_node), its PodTrafficReader
// answered by the simulator's cAdvisor counters, and its Publisher writing a real shared-memory
// table, all on a VirtualClock. The simulator plays Prometheus for the refresh's node query (the
// answers the collector's parser would assemble) and drives the publisher's cluster thread by
// hand. Not emulated: the refresh query's HTTP path (query plan, layout and speed side
// questions, diagnosis) and the watch's own delays (the loop adds its visibility delay). Cluster
// changes are published as the publisher's own thread does, at once after a quiet gap and else
// when the gap ends (Publisher::cluster_publish_gap), a publish taking `publish_s`. Prometheus'
// answers take virtual time only as the reader of per-pod traffic measures it (QueryCosts): its
// cadence between reads of every pod follows their costs, as a real collector's does.
namespace netscore::sim {

// What a Prometheus query costs the collector, in ms: `query_ms`, plus `series_ms` for each series
// it answers (the node query, the read of every pod) or names (the recent pods' read).
struct QueryCosts {
  double query_ms = 0;
  double series_ms = 0;

  double of(std::size_t series) const { return query_ms + series_ms * static_cast<double>(series); }
};

class VirtualCollector {
 public:
  // `pods`: the cAdvisor counters, read when `pod_series` says they carry the pod's namespace and
  // name; without, the detection finds none, as it would.
  VirtualCollector(const Config& config, const VirtualClock& clock, const std::string& table,
                   const PodCounters& pods, bool pod_series, double publish_s,
                   QueryCosts costs = {});
  ~VirtualCollector();

  void add_node(const std::string& name);
  // A watch event of a bound pod or of a deleted one. Published at once after a quiet gap;
  // otherwise the seconds until the gap ends, when publish_deferred() is due (nullopt: published,
  // or a publish is due already).
  [[nodiscard]] std::optional<double> pod_bound(const testing::kube::Pod& pod);
  [[nodiscard]] std::optional<double> pod_deleted(const std::string& uid);
  void publish_deferred();
  std::uint64_t publishes() const { return publisher_.publishes(); }
  // A refresh: the node query's answer, then what the pod reads find, published.
  void refresh(std::vector<model::NodeSample> samples);
  // The publisher's decay tick.
  void tick();

  const collector::ClusterState& state() const { return state_; }
  // The reads of per-pod traffic as they stand; nullopt with NETSCORE_POD_TRAFFIC off.
  std::optional<collector::PodTrafficReads> pod_traffic() const;

 private:
  class Synced final : public collector::WatchStatusSource {
   public:
    collector::WatcherStatus status() const override;
  };
  class Counters;  // the PodTrafficSource over PodCounters

  const Config& config_;
  const VirtualClock& clock_;
  collector::ClusterState state_;
  Synced synced_;
  ScoreTableWriter writer_;
  collector::Publisher publisher_;
  std::unique_ptr<Counters> counters_;
  std::optional<collector::PodTrafficReader> pod_traffic_;
  std::chrono::nanoseconds publish_gap_;
  std::int64_t next_cluster_publish_ns_ = INT64_MIN;
  bool cluster_dirty_ = false;

  std::optional<double> cluster_changed();
  void publish_cluster();
};

}  // namespace netscore::sim
