#include "collector/kube/rebalance_labeler.h"

#include <condition_variable>
#include <set>

#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/config_types.h"
#include "common/pod_annotations.h"

namespace netscore::collector {
namespace {

std::string pod_path(const std::string& pod) {
  const std::size_t slash = pod.find('/');
  return "/api/v1/namespaces/" + pod.substr(0, slash) + "/pods/" + pod.substr(slash + 1);
}

}  // namespace

std::string rebalance_label_patch(bool nominated) {
  std::string patch = R"({"metadata":{"labels":{")";
  patch.append(kRebalanceLabel).append(R"(":)");
  if (nominated) {
    patch.append("\"").append(kRebalanceLabelValue).append("\"");
  } else {
    patch.append("null");
  }
  return patch + "}}}";
}

RebalanceLabeler::Options RebalanceLabeler::options(const Config& config) {
  Options o;
  o.kube = config.kube;
  o.table = config.shm.name;
  o.settings.figure = config.rebalance.figure;
  o.settings.target_points = config.rebalance.target_points;
  o.settings.low_points = config.rebalance.low_points;
  o.settings.min_pod_age_ms = config.rebalance.min_pod_age.value.count();
  o.interval = config.refresh_interval.value;
  o.rest = rebalance_rest(config).value;
  return o;
}

RebalanceLabeler::RebalanceLabeler(Options options, ClusterState& state,
                                   const ClusterWatcher& watcher, RebalanceStatus& status)
    : options_(std::move(options)),
      state_(state),
      watcher_(watcher),
      status_(status),
      client_(KubeClient::Options{.kube = options_.kube,
                                  .user_agent = "netscore-collector/rebalance",
                                  .stop = stop_.get_token()}),
      memory_(options_.rest.count()) {
  if (!options_.now_ms) options_.now_ms = wall_now_ms;
}

RebalanceLabeler::~RebalanceLabeler() {
  stop();
}

void RebalanceLabeler::start() {
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

void RebalanceLabeler::stop() {
  stop_.request_stop();
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

void RebalanceLabeler::run(std::stop_token stop) {
  std::mutex wait_mutex;
  std::condition_variable_any wake;
  while (!stop.stop_requested() && !stop_.stop_requested()) {
    round();
    std::unique_lock lock(wait_mutex);
    wake.wait_for(lock, stop, options_.interval, [] { return false; });
  }
}

RebalanceLabeler::Counters RebalanceLabeler::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void RebalanceLabeler::round() {
  {
    std::lock_guard lock(mutex_);
    ++counters_.rounds;
  }
  // Before the first list the pods are not known: every label would look stale.
  if (watcher_.status().state != shm::WatchState::synced) return;
  // Without the descheduler's reading the labels stay as they are until the next one.
  const auto utilisation = status_.utilisation();
  if (!utilisation) return;
  std::vector<TableRow> rows;
  try {
    if (!reader_) reader_.emplace(ScoreTableReader::Options{.name = options_.table});
    shm::SnapshotMeta meta{};
    if (reader_->read_all(rows, meta) != ReadStatus::ok) return;
  } catch (const std::exception& e) {
    spdlog::warn("rebalance table={} error=\"{}\"", options_.table, e.what());
    reader_.reset();
    return;
  }
  if (figure_direction_ != utilisation->direction) {
    spdlog::info("rebalance figure_direction={}", direction_name(utilisation->direction));
    figure_direction_ = utilisation->direction;
  }
  const auto bound = state_.bound_pods();
  const model::LearnedRates learned = state_.learned_per_pod();
  RebalanceInputs in = rebalance_inputs(rows, utilisation->by_node, utilisation->direction, bound,
                                        learned.receive.value_or(options_.kube.pod_receive_rate),
                                        learned.transmit.value_or(options_.kube.pod_transmit_rate));
  const std::int64_t now = options_.now_ms();
  memory_.mark_resting(in.pods, now);
  memory_.mark_cooling(in.nodes);
  const auto nominees = model::nominate_evictions(in.nodes, in.pods, options_.settings, now);

  std::set<std::string> wanted;
  for (const auto& n : nominees) wanted.insert(n.pod);
  status_.nominees = static_cast<std::uint32_t>(nominees.size());
  std::size_t writes = 0;
  const auto due = [&](const std::string& pod, bool nominated) {
    const auto it = written_.find(pod);
    // A patch the watch has not shown yet is not repeated within two rounds.
    return it == written_.end() || it->second.first != nominated ||
           now - it->second.second >= 2 * options_.interval.count();
  };
  for (const auto& pod : bound) {
    const bool want = wanted.contains(pod.name);
    if (want == pod.nominated || !due(pod.name, want)) continue;
    if (writes++ == options_.max_writes) break;
    write(pod.name, want, now);
  }
  memory_.remember(nominees, in.pods);
  std::erase_if(written_, [&](const auto& w) {
    return now - w.second.second >= 10 * options_.interval.count();
  });
}

void RebalanceLabeler::write(const std::string& pod, bool nominated, std::int64_t now) {
  const HttpResult result = client_.merge_patch(pod_path(pod), rebalance_label_patch(nominated));
  const bool gone = result.answered() && result.http_status == 404;
  if (!gone) ++(result.ok() ? status_.patches_total : status_.patch_failures_total);
  std::lock_guard lock(mutex_);
  if (result.ok()) {
    written_[pod] = {nominated, now};
    ++(nominated ? counters_.labelled : counters_.unlabelled);
    spdlog::info("rebalance pod={} label={}", pod, nominated ? "set" : "removed");
  } else if (gone) {
    spdlog::debug("rebalance pod={} gone before its patch", pod);
  } else {
    ++counters_.failures;
    spdlog::warn("rebalance pod={} patch failed: {}", pod, describe_kube_failure(result));
  }
}

}  // namespace netscore::collector
