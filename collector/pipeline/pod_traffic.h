#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/pipeline/pod_rates.h"
#include "collector/pipeline/recent_pod_traffic.h"
#include "collector/prometheus/prometheus_api.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/model/inputs.h"
#include "common/table/score_table_layout.h"

// Traffic per pod where Prometheus has it: cAdvisor's per-container network counters
// (container_network_{receive,transmit}_bytes_total, scraped from kubelet's /metrics/cadvisor),
// whose pod sandbox series carry the pod's namespace and name. Not every container runtime fills
// those labels, so whether such series exist is checked first (at the first read and every
// forty refresh intervals, like the node-label layout); while none do, nothing more is asked.
namespace netscore::collector {

inline constexpr std::string_view kPodReceiveMetric = "container_network_receive_bytes_total";
inline constexpr std::string_view kPodTransmitMetric = "container_network_transmit_bytes_total";

// The traffic per pod as last read: a value, handed to the publisher with each measurement.
struct PodTraffic {
  bool checked = false;           // the detection has answered at least once
  bool in_use = false;            // per-pod series with namespace and pod labels exist
  std::int64_t eval_time_ms = 0;  // of `pods` (Unix ms); 0: never read
  // By "namespace/name".
  std::unordered_map<std::string, PodRates> pods{};
  std::string receive_query{};
  std::string transmit_query{};
  std::string detection_query{};
  std::string error{};  // why the last detection or read failed; empty when it did not
};

// The table status' word for the traffic's state.
shm::PodTrafficState pod_traffic_state(const PodTraffic& traffic);

// "namespace/name", the key of PodTraffic::pods and of the watched pods it is joined to.
std::string pod_key(std::string_view namespace_name, std::string_view pod);

// A watched pod's measured traffic.
struct WatchedPodTraffic {
  std::string name;  // "namespace/name"
  std::string node;
  PodRates rates;
};
struct PodTrafficJoin {
  std::int64_t eval_time_ms = 0;          // PodTraffic::eval_time_ms
  std::vector<WatchedPodTraffic> pods{};  // sorted by name
  // Measured pods that are no watched pod: unknown (yet), gone, or on their node's network
  // (spec.hostNetwork), whose series are their node's traffic and never a pod's.
  std::uint32_t unmatched = 0;
};
PodTrafficJoin join_watched_pods(const PodTraffic& traffic, const ClusterState& state);

// How a read turns a pod's counter samples into bytes/s: rate() over the range (the read of every
// pod, over the window), or deriv(), their slope (the recent reads: a pod that ran for part of the
// range reads at its own rate, not spread over the whole range).
enum class PodRateFunction { rate, deriv };

// One read of the traffic per pod, in PromQL and in what it means.
struct PodRatesRequest {
  const std::string& receive_query;
  const std::string& transmit_query;
  PodRateFunction function = PodRateFunction::rate;
  std::int64_t range_ms = 0;             // the rates' range
  std::span<const std::string> names{};  // "namespace/name"; empty: every pod
};

// What answers the reads: Prometheus (PrometheusPodTraffic), or the counters of the closed-loop
// simulator, which runs the reader in virtual time.
class PodTrafficSource {
 public:
  virtual ~PodTrafficSource() = default;
  // Whether per-pod series with namespace and pod labels exist; `query` counts them.
  virtual ApiResult<bool> labelled_series(const std::string& query, std::int64_t eval_time_ms) = 0;
  // Both directions' rates by "namespace/name"; a pod without a series in a direction has that
  // direction invalid, one with neither is absent.
  virtual ApiResult<std::unordered_map<std::string, PodRates>> rates(const PodRatesRequest& request,
                                                                     std::int64_t eval_time_ms) = 0;
  virtual bool aborted() const = 0;
};

class PrometheusPodTraffic final : public PodTrafficSource {
 public:
  explicit PrometheusPodTraffic(PrometheusApi& api) : api_(api) {}
  ApiResult<bool> labelled_series(const std::string& query, std::int64_t eval_time_ms) override;
  ApiResult<std::unordered_map<std::string, PodRates>> rates(const PodRatesRequest& request,
                                                             std::int64_t eval_time_ms) override;
  bool aborted() const override { return api_.aborted(); }

 private:
  PrometheusApi& api_;
};

// What the reads took (ms), for the adaptive interval: the refresh's own query (its
// mean since the last read of every pod), the last read of every pod, and the recent pods' read
// (its mean per refresh since then).
struct ReadCosts {
  double node_ms = 0;
  double full_ms = 0;
  double recent_ms = 0;
};
inline constexpr std::int64_t kMinFullReadRefreshes = 4;
// auto's longest interval: the pods placed since are priced by the recent read, but a running
// pod's own rate, and its workload's mean, stay those of the last read of every pod.
inline constexpr std::int64_t kLongestFullReadIntervalMs = 3'600'000;
// The fewest refreshes between reads of every pod, at least kMinFullReadRefreshes, at which the
// per-pod reads take no longer per refresh, on average, than the refresh's own query:
// full / n + recent <= node, at most `max_refreshes`; where the recent read costs more than three
// quarters of the node read, full / n <= node / 4.
std::int64_t full_read_refreshes(const ReadCosts& costs, std::int64_t max_refreshes);

// What the reads of the traffic per pod hand each measurement, as they stand after its refresh.
struct PodTrafficReads {
  // The traffic per pod as last read, at its own cadence (pod_traffic_interval()): null
  // when NETSCORE_POD_TRAFFIC is off. Shared, immutable: measurements between reads hold the same.
  std::shared_ptr<const PodTraffic> every_pod{};
  // The recent pods' traffic, read every refresh (recent_pod_traffic.h): null when
  // NETSCORE_POD_TRAFFIC is off or no pods are watched.
  std::shared_ptr<const RecentPodTraffic> recent{};
  // The time between reads of every pod now (auto adapts it), and what the reads it
  // weighs took as last measured; 0 when off.
  std::int64_t interval_ms = 0;
  ReadCosts costs{};
  shm::PodTrafficState state = shm::PodTrafficState::off;  // pod_traffic_state(*every_pod)
  // The pods of the read of every pod that are watched pods (join_watched_pods), joined once per
  // read, so pods watched since are joined at the next; 0 without watched pods.
  std::uint32_t watched = 0;
};

// Asks what is due and keeps the last traffic read. Not thread-safe: the measuring thread owns
// it; what it hands out is immutable.
class PodTrafficReader {
 public:
  struct Counts {
    std::uint64_t detections = 0;
    std::uint64_t reads = 0;  // each one request per direction
    std::uint64_t failed = 0;
    std::uint64_t recent_reads = 0;  // each one request per direction
    std::uint64_t recent_failed = 0;
  };
  // Which of its requests are due on its clock: the detection, and the read of every pod (made
  // too when the detection finds per-pod series anew). The recent pods' read is every refresh's.
  struct Due {
    bool detection = false;
    bool read = false;
  };

  // With `cluster`, the pods it watches that the read of every pod does not price yet are read
  // every refresh by name (recent_pod_traffic.h); without, only the read of every pod is made.
  explicit PodTrafficReader(const Config& config, MonoClockMs clock = mono_now_ms,
                            const ClusterState* cluster = nullptr);

  Due due() const;
  // The detection and the reads `due` names (the refresh's plan, decided at its start; without
  // one, what is due now); the traffic as it stands after them. `node_read_ms`: what this
  // refresh's own query took, the measure of the adaptive interval.
  std::shared_ptr<const PodTraffic> refresh(PodTrafficSource& source, std::int64_t eval_time_ms,
                                            std::int64_t node_read_ms = 0,
                                            std::optional<Due> due = std::nullopt);
  std::shared_ptr<const PodTraffic> refresh(PrometheusApi& api, std::int64_t eval_time_ms,
                                            std::int64_t node_read_ms = 0,
                                            std::optional<Due> due = std::nullopt);
  // Everything read as it stands, nothing asked: what a measurement carries. The recent pods'
  // read only with watched pods.
  PodTrafficReads reads() const;
  const Counts& counts() const { return counts_; }

 private:
  // True when it finds per-pod series where there were none: then they are read at once.
  bool detect(PodTrafficSource& source, std::int64_t eval_time_ms, PodTraffic& next);
  void read(PodTrafficSource& source, std::int64_t eval_time_ms, PodTraffic& next);
  void read_recent(PodTrafficSource& source, std::int64_t eval_time_ms);
  // After a read of every pod that took `full_ms`: the next interval, and a new tally.
  void adapt_interval(std::int64_t full_ms);

  const std::int64_t recheck_ms_;
  const std::int64_t refresh_ms_;
  const model::LoadWindow window_;  // load_window(): where a pod's traffic is in a read's range
  const PromDuration recent_range_;
  const MonoClockMs clock_;
  const ClusterState* cluster_;
  std::int64_t interval_ms_;
  std::shared_ptr<const PodTraffic> traffic_;
  std::shared_ptr<const RecentPodTraffic> recent_;
  Counts counts_;
  std::int64_t next_detection_ms_ = 0;
  std::int64_t next_read_ms_ = 0;
  // Since the last read of every pod: the refreshes' own queries and the recent reads, in ms.
  std::int64_t node_ms_total_ = 0;
  std::int64_t recent_ms_total_ = 0;
  std::int64_t refreshes_ = 0;
  ReadCosts last_costs_{};
  std::int64_t joined_eval_ms_ = 0;  // of the read of every pod last joined to the watched pods
  std::uint32_t watched_ = 0;
};

}  // namespace netscore::collector
