#include "bench/closed_loop/virtual_time/virtual_collector.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <spdlog/spdlog.h>

#include "collector/pipeline/measure.h"
#include "common/model_settings.h"

namespace netscore::sim {

class VirtualCollector::Counters final : public collector::PodTrafficSource {
 public:
  Counters(const PodCounters& pods, bool labelled, QueryCosts costs)
      : pods_(pods), labelled_(labelled), costs_(costs) {}

  collector::ApiResult<bool> labelled_series(const std::string&, std::int64_t) override {
    spent_ms_ += costs_.query_ms;
    return {.value = labelled_};
  }

  collector::ApiResult<std::unordered_map<std::string, collector::PodRates>> rates(
      const collector::PodRatesRequest& request, std::int64_t eval_time_ms) override {
    const std::unordered_set<std::string> named(request.names.begin(), request.names.end());
    std::unordered_map<std::string, collector::PodRates> out;
    const Function function =
        request.function == collector::PodRateFunction::deriv ? Function::deriv : Function::rate;
    for (const PodRead& read : pods_.read(eval_time_ms, request.range_ms, {}, function)) {
      if (!named.empty() && !named.contains(read.rates.name)) continue;
      out[read.rates.name] = {.receive = read.rates.receive,
                              .transmit = read.rates.transmit,
                              .receive_valid = read.rates.receive >= 0,
                              .transmit_valid = read.rates.transmit >= 0};
    }
    // One query per direction, as the collector asks.
    spent_ms_ += 2 * costs_.of(named.empty() ? out.size() : named.size());
    return {.value = std::move(out)};
  }

  bool aborted() const override { return false; }

  // The time Prometheus took over all the queries so far: the reader's clock runs ahead by it.
  double spent_ms() const { return spent_ms_; }
  const QueryCosts& costs() const { return costs_; }

 private:
  const PodCounters& pods_;
  bool labelled_;
  QueryCosts costs_;
  double spent_ms_ = 0;
};

collector::WatcherStatus VirtualCollector::Synced::status() const {
  return {.state = shm::WatchState::synced};
}

namespace {

collector::Publisher::Options publisher_options(const Config& config, const VirtualClock& clock) {
  collector::Publisher::Options options = collector::Publisher::options(config, {});
  options.clocks = clock.clocks();
  return options;
}

}  // namespace

VirtualCollector::VirtualCollector(const Config& config, const VirtualClock& clock,
                                   const std::string& table, const PodCounters& pods,
                                   bool pod_series, double publish_s, QueryCosts costs)
    : config_(config),
      clock_(clock),
      state_(placement_horizon_ms(config)),
      writer_({.name = table, .capacity = 1024, .clocks = clock.clocks()}),
      publisher_(publisher_options(config, clock), writer_,
                 collector::Publisher::Cluster{state_, synced_}),
      counters_(std::make_unique<Counters>(pods, pod_series, costs)),
      publish_gap_(collector::Publisher::cluster_publish_gap(
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::duration<double>(publish_s)),
          publisher_options(config, clock))) {
  // The product's logs describe a real collector's life: thousands of lines per virtual hour.
  spdlog::set_level(spdlog::level::err);
  if (config.pod_traffic.enabled) {
    const Counters* counters = counters_.get();
    pod_traffic_.emplace(
        config,
        [&clock, counters] {
          return clock.mono_ns() / 1'000'000 + static_cast<std::int64_t>(counters->spent_ms());
        },
        &state_);
  }
}

VirtualCollector::~VirtualCollector() = default;

void VirtualCollector::add_node(const std::string& name) {
  if (auto node = collector::parse_node(
          testing::kube::to_json(testing::kube::Node{.name = name}, true), config_.label_rules)) {
    state_.upsert_node(*node);
  }
}

std::optional<double> VirtualCollector::pod_bound(const testing::kube::Pod& pod) {
  auto facts = collector::parse_pod(testing::kube::to_json(pod, true));
  if (!facts) return std::nullopt;
  state_.upsert_pod(*facts, clock_.wall_ms());
  return cluster_changed();
}

std::optional<double> VirtualCollector::pod_deleted(const std::string& uid) {
  state_.remove_pod(uid, clock_.wall_ms());
  return cluster_changed();
}

std::optional<double> VirtualCollector::cluster_changed() {
  const std::int64_t now = clock_.mono_ns();
  if (now >= next_cluster_publish_ns_) {
    publish_cluster();
    return std::nullopt;
  }
  if (cluster_dirty_) return std::nullopt;
  cluster_dirty_ = true;
  return static_cast<double>(next_cluster_publish_ns_ - now) / 1e9;
}

void VirtualCollector::publish_deferred() {
  if (cluster_dirty_) publish_cluster();
}

void VirtualCollector::publish_cluster() {
  cluster_dirty_ = false;
  publisher_.republish(true);
  next_cluster_publish_ns_ = clock_.mono_ns() + publish_gap_.count();
}

void VirtualCollector::refresh(std::vector<model::NodeSample> samples) {
  collector::Measurement m;
  m.ok = m.nodes.queried = m.nodes.answered = true;
  m.eval_time_ms = clock_.wall_ms();
  m.timing.started_wall_ms = m.timing.finished_wall_ms = m.eval_time_ms;
  m.timing.finished_mono_ns = clock_.mono_ns();
  m.nodes.series = static_cast<std::uint32_t>(samples.size());
  m.nodes.samples = std::move(samples);
  if (pod_traffic_) {
    pod_traffic_->refresh(*counters_, m.eval_time_ms,
                          std::llround(counters_->costs().of(m.nodes.samples.size())));
    m.pod_traffic = pod_traffic_->reads();
  }
  publisher_.publish(m);
}

std::optional<collector::PodTrafficReads> VirtualCollector::pod_traffic() const {
  if (!pod_traffic_) return std::nullopt;
  return pod_traffic_->reads();
}

void VirtualCollector::tick() {
  publisher_.republish(false);
}

}  // namespace netscore::sim
