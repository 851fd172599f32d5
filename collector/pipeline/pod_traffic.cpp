#include "collector/pipeline/pod_traffic.h"

#include <algorithm>
#include <utility>

#include "collector/prometheus/promql.h"

namespace netscore::collector {

shm::PodTrafficState pod_traffic_state(const PodTraffic& traffic) {
  if (!traffic.checked) return shm::PodTrafficState::unchecked;
  return traffic.in_use ? shm::PodTrafficState::in_use : shm::PodTrafficState::absent;
}

std::string pod_key(std::string_view namespace_name, std::string_view pod) {
  std::string key(namespace_name);
  key += '/';
  key += pod;
  return key;
}

PodTrafficJoin join_watched_pods(const PodTraffic& traffic, const ClusterState& state) {
  PodTrafficJoin out{.eval_time_ms = traffic.eval_time_ms};
  std::vector<std::string> names;
  names.reserve(traffic.pods.size());
  for (const auto& [name, rates] : traffic.pods) names.push_back(name);
  std::sort(names.begin(), names.end());
  const std::vector<std::string> nodes = state.nodes_of_pods(names);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (nodes[i].empty()) {
      ++out.unmatched;
      continue;
    }
    out.pods.push_back({names[i], nodes[i], traffic.pods.at(names[i])});
  }
  return out;
}

PodTrafficReader::PodTrafficReader(const Config& config, MonoClockMs clock)
    : recheck_ms_(config.recheck_interval.value.count()),
      interval_ms_(pod_traffic_interval(config).count()),
      clock_(std::move(clock)) {
  PodTraffic empty;
  const std::string window = config.query.time_range.text;
  empty.detection_query = build_pod_series_query(std::string(kPodReceiveMetric));
  empty.receive_query = build_pod_traffic_query(std::string(kPodReceiveMetric), window);
  empty.transmit_query = build_pod_traffic_query(std::string(kPodTransmitMetric), window);
  traffic_ = std::make_shared<const PodTraffic>(std::move(empty));
}

std::shared_ptr<const PodTraffic> PodTrafficReader::refresh(PrometheusApi& api,
                                                            std::int64_t eval_time_ms) {
  const bool detection_due = clock_() >= next_detection_ms_;
  const bool read_due = clock_() >= next_read_ms_;
  if (!detection_due && !(read_due && traffic_->in_use)) return traffic_;
  PodTraffic next = *traffic_;
  if (detection_due) detect(api, eval_time_ms, next);
  // A runtime that fills no pod labels gives no pod traffic: nothing to read until it does.
  if (next.in_use && clock_() >= next_read_ms_) read(api, eval_time_ms, next);
  if (!next.in_use) {
    next.pods.clear();
    next.eval_time_ms = 0;
  }
  traffic_ = std::make_shared<const PodTraffic>(std::move(next));
  return traffic_;
}

void PodTrafficReader::detect(PrometheusApi& api, std::int64_t eval_time_ms, PodTraffic& next) {
  ++counts_.detections;
  const std::int64_t now_ms = clock_();
  const auto answer = api.query({.promql = next.detection_query}, eval_time_ms);
  if (!answer.ok()) {
    // What was found before stands; asked again at the next refresh.
    ++counts_.failed;
    next.error = "detection: " + answer.error;
    next_detection_ms_ = now_ms;
    return;
  }
  next.error.clear();
  next.checked = true;
  // count() of no series is no series; of some, one series (without labels) with their number.
  const bool in_use = answer.value->series > 0;
  if (in_use && !next.in_use) next_read_ms_ = now_ms;  // newly found: read at once
  next.in_use = in_use;
  // While none are found, looked for again at the read's cadence: kubelet's targets may not be
  // scraped yet when the collector starts, and the question is one count().
  next_detection_ms_ = now_ms + (in_use ? recheck_ms_ : std::min(recheck_ms_, interval_ms_));
}

void PodTrafficReader::read(PrometheusApi& api, std::int64_t eval_time_ms, PodTraffic& next) {
  ++counts_.reads;
  const std::int64_t now_ms = clock_();
  const auto receive = api.pod_traffic(next.receive_query, eval_time_ms);
  const auto transmit = receive.ok() ? api.pod_traffic(next.transmit_query, eval_time_ms) : receive;
  if (!receive.ok() || !transmit.ok()) {
    // The last traffic read stands (with its evaluation time); asked again at the next refresh.
    ++counts_.failed;
    next.error = "read: " + (receive.ok() ? transmit.error : receive.error);
    next_read_ms_ = now_ms;
    return;
  }
  next.error.clear();
  next.pods.clear();
  next.pods.reserve(receive.value->pods.size());
  for (const PodRate& r : receive.value->pods) {
    PodRates& rates = next.pods[pod_key(r.namespace_name, r.pod)];
    rates.receive = r.value;
    rates.receive_valid = true;
  }
  for (const PodRate& t : transmit.value->pods) {
    PodRates& rates = next.pods[pod_key(t.namespace_name, t.pod)];
    rates.transmit = t.value;
    rates.transmit_valid = true;
  }
  next.eval_time_ms = eval_time_ms;
  next_read_ms_ = now_ms + interval_ms_;
}

}  // namespace netscore::collector
