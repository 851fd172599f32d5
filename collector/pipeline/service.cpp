#include "collector/pipeline/service.h"

#include <exception>
#include <optional>
#include <string>
#include <stop_token>
#include <string_view>
#include <thread>

#include <spdlog/spdlog.h>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/kube/rebalance_labeler.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/publisher.h"
#include "collector/pipeline/refresh_loop.h"
#include "collector/prometheus/prometheus_client.h"
#include "collector/prometheus/query_builder.h"
#include "common/model_settings.h"
#include "common/table/score_table_writer.h"

namespace netscore::collector {
namespace {

std::string_view query_mode_name(QueryMode mode) {
  switch (mode) {
    case QueryMode::label:
      return "label";
    case QueryMode::uname:
      return "uname";
    case QueryMode::custom:
      return "custom";
  }
  return "?";
}

// The Kubernetes side, present with an API server. Members are declared so that the watcher,
// whose thread calls the publisher, is destroyed before it.
struct KubeSide {
  std::optional<ClusterState> state;
  RebalanceStatus rebalance;
  std::optional<Publisher> publisher;
  std::optional<ClusterWatcher> watcher;
  std::optional<RebalanceLabeler> labeler;

  std::optional<Publisher::Cluster> cluster(const Config& config) {
    if (!watcher) return std::nullopt;
    return Publisher::Cluster{*state, *watcher, config.rebalance.label ? &rebalance : nullptr};
  }
};

void build_watcher(const Config& config, KubeSide& side) {
  if (config.kube.url.empty()) return;
  side.state.emplace(placement_horizon_ms(config));
  side.watcher.emplace(
      ClusterWatcher::Options{.kube = config.kube,
                              .rules = config.label_rules,
                              .on_change = [&side] { side.publisher->cluster_changed(); }},
      *side.state);
}

void start_kube_side(const Config& config, KubeSide& side) {
  if (side.watcher) side.watcher->start();
  if (!config.rebalance.label) return;
  if (!side.watcher) {
    spdlog::warn("NETSCORE_REBALANCE_LABEL=true needs the Kubernetes API: no pod is labelled");
    return;
  }
  side.labeler.emplace(RebalanceLabeler::options(config), *side.state, *side.watcher,
                       side.rebalance);
  side.labeler->start();
}

void stop_kube_side(KubeSide& side) {
  if (side.labeler) side.labeler->stop();
  if (side.watcher) side.watcher->stop();
}

}  // namespace

std::optional<std::string> query_settings_error(const Config& config) {
  try {
    build_batch_query(config.query);
    if (!config.prometheus.headers_file.empty()) read_headers_file(config.prometheus.headers_file);
  } catch (const std::exception& e) {
    return e.what();
  }
  return std::nullopt;
}

void run_service(const Config& config, const sigset_t& stop_signals,
                 const std::string& user_agent) {
  ScoreTableWriter writer(
      {.name = config.shm.name, .capacity = config.shm.capacity, .mode = config.shm.mode});
  PrometheusClient client({config.prometheus, 256U << 20, user_agent});
  KubeSide side;
  build_watcher(config, side);
  side.publisher.emplace(Publisher::options(config, client.redacted_url()), writer,
                         side.cluster(config));
  side.publisher->start();
  start_kube_side(config, side);
  Measurer measurer(
      config, client,
      {.retries = config.prometheus.retries, .cluster = side.state ? &*side.state : nullptr});
  RefreshLoop loop({config.refresh_interval.value, {}}, measurer, *side.publisher, client);
  spdlog::info(
      "started url={} mode={} query=\"{}\" transmit_query=\"{}\" interval={} shm={} took_over={}",
      client.redacted_url(), query_mode_name(config.query.mode), measurer.query().promql,
      measurer.query().transmit_promql, config.refresh_interval.text, config.shm.name,
      writer.took_over());
  std::jthread runner([&loop](std::stop_token stop) { loop.run(stop); });
  int signal = 0;
  sigwait(&stop_signals, &signal);
  spdlog::info("stopping signal={}", signal);
  runner.request_stop();
  runner.join();
  stop_kube_side(side);
  side.publisher->stop();
  spdlog::info("stopped refreshes={}", loop.refreshes());
}

}  // namespace netscore::collector
