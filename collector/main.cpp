// netscore-collector: one batched Prometheus query per refresh (a request per direction) → the
// shared-memory score table.
#include <curl/curl.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "collector/kube/rebalance_labeler.h"
#include "collector/pipeline/check.h"
#include "collector/pipeline/measure.h"
#include "collector/pipeline/print_rules.h"
#include "collector/pipeline/publisher.h"
#include "collector/pipeline/refresh_loop.h"
#include "collector/prometheus/prometheus_client.h"
#include "collector/prometheus/query_builder.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/logging.h"
#include "common/model_settings.h"
#include "common/signals.h"
#include "common/table/score_table_writer.h"

namespace {

std::string query_mode_name(netscore::QueryMode mode) {
  switch (mode) {
    case netscore::QueryMode::label:
      return "label";
    case netscore::QueryMode::uname:
      return "uname";
    case netscore::QueryMode::custom:
      return "custom";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  // --check and --print-rules are modes, not settings: taken out before the configuration sees
  // the flags.
  std::vector<char*> args;
  bool check = false;
  bool print_rules = false;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::string_view(argv[i]) == "--check") {
      check = true;
    } else if (i > 0 && std::string_view(argv[i]) == "--print-rules") {
      print_rules = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (check && print_rules) {
    std::fprintf(stderr, "--check and --print-rules are two modes: give one\n");
    return 2;
  }
  const netscore::Config config = netscore::load_config_or_exit(
      netscore::Component::collector, static_cast<int>(args.size()), args.data());
  netscore::init_logging("netscore-collector", config.log_level, config.log_format);
  try {
    netscore::collector::build_batch_query(config.query);
    if (!config.prometheus.headers_file.empty())
      netscore::collector::read_headers_file(config.prometheus.headers_file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }

  const sigset_t signals = netscore::block_termination_signals();

  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    spdlog::critical("fatal error=\"curl_global_init failed\"");
    return EXIT_FAILURE;
  }
  if (check || print_rules) {
    int status = EXIT_FAILURE;
    try {
      status =
          check ? netscore::collector::run_check(config, netscore::wall_now_ms(), std::cout)
                : netscore::collector::run_print_rules(config, netscore::wall_now_ms(), std::cout);
    } catch (const std::exception& e) {
      std::cout << "FAIL: " << e.what() << "\n";
    }
    curl_global_cleanup();
    return status;
  }
  try {
    netscore::ScoreTableWriter writer(
        {.name = config.shm.name, .capacity = config.shm.capacity, .mode = config.shm.mode});
    netscore::collector::PrometheusClient client(
        {config.prometheus, 256U << 20, std::string("netscore-collector/") + NETSCORE_VERSION});
    // measure -> publisher -> table; with a Kubernetes API server, the watcher's changes reach
    // the publisher too.
    namespace nc = netscore::collector;
    // Declared so that the watcher, whose thread calls the publisher, is destroyed first.
    std::optional<nc::ClusterState> state;
    nc::RebalanceStatus rebalance;
    std::optional<nc::Publisher> publisher;
    std::optional<nc::ClusterWatcher> watcher;
    std::optional<nc::RebalanceLabeler> labeler;
    if (!config.kube.url.empty()) {
      state.emplace(netscore::placement_horizon_ms(config));
      watcher.emplace(
          nc::ClusterWatcher::Options{.kube = config.kube,
                                      .rules = config.label_rules,
                                      .on_change = [&publisher] { publisher->cluster_changed(); }},
          *state);
    }
    publisher.emplace(nc::Publisher::options(config, client.redacted_url()), writer,
                      watcher
                          ? std::optional<nc::Publisher::Cluster>(
                                {*state, *watcher, config.rebalance.label ? &rebalance : nullptr})
                          : std::nullopt);
    publisher->start();
    if (watcher) watcher->start();
    if (!watcher && config.rebalance.label)
      spdlog::warn("NETSCORE_REBALANCE_LABEL=true needs the Kubernetes API: no pod is labelled");
    if (watcher && config.rebalance.label) {
      labeler.emplace(nc::RebalanceLabeler::options(config), *state, *watcher, rebalance);
      labeler->start();
    }
    nc::Measurer measurer(
        config, client,
        {.retries = config.prometheus.retries, .cluster = state ? &*state : nullptr});
    nc::RefreshLoop loop({config.refresh_interval.value, {}}, measurer, *publisher, client);
    spdlog::info(
        "started url={} mode={} query=\"{}\" transmit_query=\"{}\" interval={} shm={} "
        "took_over={}",
        client.redacted_url(), query_mode_name(config.query.mode), measurer.query().promql,
        measurer.query().transmit_promql, config.refresh_interval.text, config.shm.name,
        writer.took_over());
    std::jthread runner([&loop](std::stop_token stop) { loop.run(stop); });
    int signal = 0;
    sigwait(&signals, &signal);
    spdlog::info("stopping signal={}", signal);
    runner.request_stop();
    runner.join();
    if (labeler) labeler->stop();
    if (watcher) watcher->stop();
    publisher->stop();
    spdlog::info("stopped refreshes={}", loop.refreshes());
  } catch (const std::exception& e) {
    spdlog::error("fatal error=\"{}\"", e.what());
    curl_global_cleanup();
    return EXIT_FAILURE;
  }
  curl_global_cleanup();
  return EXIT_SUCCESS;
}
