#include "collector/pipeline/pod_traffic.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>
#include <utility>

#include "collector/pipeline/recent_pod_traffic.h"
#include "collector/prometheus/promql.h"
#include "common/model_settings.h"

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

namespace {

// Both directions' answers by "namespace/name".
std::unordered_map<std::string, PodRates> rates_by_pod(const PodTrafficAnswer& receive,
                                                       const PodTrafficAnswer& transmit) {
  std::unordered_map<std::string, PodRates> out;
  out.reserve(receive.pods.size());
  for (const PodRate& r : receive.pods) {
    PodRates& rates = out[pod_key(r.namespace_name, r.pod)];
    rates.receive = r.value;
    rates.receive_valid = true;
  }
  for (const PodRate& t : transmit.pods) {
    PodRates& rates = out[pod_key(t.namespace_name, t.pod)];
    rates.transmit = t.value;
    rates.transmit_valid = true;
  }
  return out;
}

}  // namespace

ApiResult<bool> PrometheusPodTraffic::labelled_series(const std::string& query,
                                                      std::int64_t eval_time_ms) {
  auto answer = api_.query({.promql = query}, eval_time_ms);
  if (!answer.ok()) return {.error = std::move(answer.error), .http_status = answer.http_status};
  // count() of no series is no series; of some, one series (without labels) with their number.
  return {.value = answer.value->series > 0, .http_status = answer.http_status};
}

ApiResult<std::unordered_map<std::string, PodRates>> PrometheusPodTraffic::rates(
    const PodRatesRequest& request, std::int64_t eval_time_ms) {
  auto receive = api_.pod_traffic(request.receive_query, eval_time_ms);
  if (!receive.ok()) return {.error = std::move(receive.error), .http_status = receive.http_status};
  auto transmit = api_.pod_traffic(request.transmit_query, eval_time_ms);
  if (!transmit.ok())
    return {.error = std::move(transmit.error), .http_status = transmit.http_status};
  return {.value = rates_by_pod(*receive.value, *transmit.value),
          .http_status = transmit.http_status};
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

std::int64_t full_read_refreshes(const ReadCosts& costs, std::int64_t max_refreshes) {
  const std::int64_t most = std::max(max_refreshes, kMinFullReadRefreshes);
  // A node read too fast for the clock says nothing of the cost: the cluster is small.
  if (costs.node_ms <= 0) return kMinFullReadRefreshes;
  // At least a quarter of the node read is left to the read of every pod, so that a recent read
  // about as slow (both a millisecond or two in a small cluster, where the clock's granularity
  // decides) never defers it by the hour.
  const double budget = std::max(costs.node_ms - costs.recent_ms, costs.node_ms / 4);
  const double needed = std::ceil(costs.full_ms / budget);
  return std::clamp(static_cast<std::int64_t>(std::min(needed, static_cast<double>(most))),
                    kMinFullReadRefreshes, most);
}

PodTrafficReader::PodTrafficReader(const Config& config, MonoClockMs clock,
                                   const ClusterState* cluster)
    : recheck_ms_(config.recheck_interval.value.count()),
      refresh_ms_(config.refresh_interval.value.count()),
      window_(load_window(config, 0)),
      recent_range_(pod_traffic_recent_range(config)),
      clock_(std::move(clock)),
      cluster_(cluster),
      interval_ms_(pod_traffic_interval(config).count()) {
  PodTraffic empty;
  const std::string window = config.query.time_range.text;
  empty.detection_query = build_pod_series_query(std::string(kPodReceiveMetric));
  empty.receive_query = build_pod_traffic_query(std::string(kPodReceiveMetric), window);
  empty.transmit_query = build_pod_traffic_query(std::string(kPodTransmitMetric), window);
  traffic_ = std::make_shared<const PodTraffic>(std::move(empty));
  recent_ = std::make_shared<const RecentPodTraffic>(
      RecentPodTraffic{.range_ms = recent_range_.value.count()});
}

PodTrafficReader::Due PodTrafficReader::due() const {
  const std::int64_t now_ms = clock_();
  return {.detection = now_ms >= next_detection_ms_, .read = now_ms >= next_read_ms_};
}

std::shared_ptr<const PodTraffic> PodTrafficReader::refresh(PrometheusApi& api,
                                                            std::int64_t eval_time_ms,
                                                            std::int64_t node_read_ms,
                                                            std::optional<Due> due) {
  PrometheusPodTraffic source(api);
  return refresh(source, eval_time_ms, node_read_ms, due);
}

std::shared_ptr<const PodTraffic> PodTrafficReader::refresh(PodTrafficSource& source,
                                                            std::int64_t eval_time_ms,
                                                            std::int64_t node_read_ms,
                                                            std::optional<Due> planned) {
  const Due due = planned.value_or(this->due());
  node_ms_total_ += node_read_ms;
  ++refreshes_;
  last_costs_.node_ms = static_cast<double>(node_read_ms);
  // Copied only when something is asked: the read of every pod may hold a hundred thousand.
  if (due.detection || (due.read && traffic_->in_use)) {
    PodTraffic next = *traffic_;
    const bool found = due.detection && detect(source, eval_time_ms, next);
    // A runtime that fills no pod labels gives no pod traffic: nothing to read until it does.
    if (next.in_use && (due.read || found)) read(source, eval_time_ms, next);
    if (!next.in_use) {
      next.pods.clear();
      next.eval_time_ms = 0;
    }
    traffic_ = std::make_shared<const PodTraffic>(std::move(next));
  }
  // Joined once per read, not per refresh: the read may hold a hundred thousand pods, and the
  // refreshes until the next read carry the same.
  if (cluster_ != nullptr && traffic_->eval_time_ms != joined_eval_ms_) {
    joined_eval_ms_ = traffic_->eval_time_ms;
    watched_ = static_cast<std::uint32_t>(join_watched_pods(*traffic_, *cluster_).pods.size());
  }
  if (traffic_->in_use && cluster_ != nullptr && !source.aborted()) {
    const std::int64_t started_ms = clock_();
    read_recent(source, eval_time_ms);
    const std::int64_t took_ms = clock_() - started_ms;
    recent_ms_total_ += took_ms;
    last_costs_.recent_ms = static_cast<double>(took_ms);
  }
  return traffic_;
}

PodTrafficReads PodTrafficReader::reads() const {
  return {.every_pod = traffic_,
          .recent = cluster_ != nullptr ? recent_ : nullptr,
          .interval_ms = interval_ms_,
          .costs = last_costs_,
          .state = pod_traffic_state(*traffic_),
          .watched = watched_};
}

bool PodTrafficReader::detect(PodTrafficSource& source, std::int64_t eval_time_ms,
                              PodTraffic& next) {
  ++counts_.detections;
  const std::int64_t now_ms = clock_();
  const auto answer = source.labelled_series(next.detection_query, eval_time_ms);
  if (!answer.ok()) {
    // What was found before stands; asked again at the next refresh.
    ++counts_.failed;
    next.error = "detection: " + answer.error;
    next_detection_ms_ = now_ms;
    return false;
  }
  next.error.clear();
  next.checked = true;
  const bool in_use = *answer.value;
  const bool found = in_use && !next.in_use;
  next.in_use = in_use;
  // While none are found, looked for again at the read's cadence: kubelet's targets may not be
  // scraped yet when the collector starts, and the question is one count().
  next_detection_ms_ = now_ms + (in_use ? recheck_ms_ : std::min(recheck_ms_, interval_ms_));
  return found;
}

void PodTrafficReader::read(PodTrafficSource& source, std::int64_t eval_time_ms, PodTraffic& next) {
  ++counts_.reads;
  const std::int64_t now_ms = clock_();
  auto answer = source.rates({.receive_query = next.receive_query,
                              .transmit_query = next.transmit_query,
                              .range_ms = window_.window_ms},
                             eval_time_ms);
  if (!answer.ok()) {
    // The last traffic read stands (with its evaluation time); asked again at the next refresh.
    ++counts_.failed;
    next.error = "read: " + answer.error;
    next_read_ms_ = now_ms;
    return;
  }
  next.error.clear();
  next.pods = std::move(*answer.value);
  next.eval_time_ms = eval_time_ms;
  const std::int64_t took_ms = clock_() - now_ms;
  last_costs_.full_ms = static_cast<double>(took_ms);
  adapt_interval(took_ms);
  next_read_ms_ = now_ms + interval_ms_;
}

void PodTrafficReader::adapt_interval(std::int64_t full_ms) {
  if (refreshes_ > 0) {
    const auto per_refresh = [&](std::int64_t total) {
      return static_cast<double>(total) / static_cast<double>(refreshes_);
    };
    const std::int64_t refreshes =
        full_read_refreshes({.node_ms = per_refresh(node_ms_total_),
                             .full_ms = static_cast<double>(full_ms),
                             .recent_ms = per_refresh(recent_ms_total_)},
                            kLongestFullReadIntervalMs / std::max<std::int64_t>(refresh_ms_, 1));
    interval_ms_ = refreshes * refresh_ms_;
  }
  node_ms_total_ = recent_ms_total_ = refreshes_ = 0;
}

void PodTrafficReader::read_recent(PodTrafficSource& source, std::int64_t eval_time_ms) {
  const PodTraffic& full = *traffic_;
  const model::LoadWindow full_read = window_.at(full.eval_time_ms);
  RecentSelection selection = select_recent_pods(
      cluster_->pods_placed_since(unpriced_since_ms(full_read)), full.pods, full_read);
  RecentPodTraffic next{
      .eval_time_ms = recent_->eval_time_ms,
      .range_ms = recent_->range_ms,
      .asked = static_cast<std::uint32_t>(selection.asked.size()),
      .left_out = static_cast<std::uint32_t>(selection.unpriced.size() - selection.asked.size()),
      .receive_query = recent_->receive_query,
      .transmit_query = recent_->transmit_query};
  for (const std::string& name : selection.unpriced) {
    if (const auto it = recent_->pods.find(name); it != recent_->pods.end()) next.pods.insert(*it);
  }
  // No recent pod, no request.
  if (!selection.asked.empty()) {
    ++counts_.recent_reads;
    next.receive_query = build_recent_pod_traffic_query(std::string(kPodReceiveMetric),
                                                        recent_range_.text, selection.asked);
    next.transmit_query = build_recent_pod_traffic_query(std::string(kPodTransmitMetric),
                                                         recent_range_.text, selection.asked);
    auto answer = source.rates({.receive_query = next.receive_query,
                                .transmit_query = next.transmit_query,
                                .function = PodRateFunction::deriv,
                                .range_ms = recent_range_.value.count(),
                                .names = selection.asked},
                               eval_time_ms);
    if (!answer.ok()) {
      // What was read before stands; asked again at the next refresh.
      ++counts_.recent_failed;
      next.error = "recent read: " + answer.error;
    } else {
      const std::unordered_set<std::string> asked(selection.asked.begin(), selection.asked.end());
      for (auto& [name, rates] : *answer.value) {
        // The selector's two alternations may match a pod not asked: left out.
        if (!asked.contains(name)) continue;
        ++next.answered;
        next.pods[name] = {.rates = rates, .eval_time_ms = eval_time_ms};
      }
      next.eval_time_ms = eval_time_ms;
    }
  }
  recent_ = std::make_shared<const RecentPodTraffic>(std::move(next));
}

}  // namespace netscore::collector
