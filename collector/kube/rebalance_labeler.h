#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collector/kube/cluster_state.h"
#include "collector/kube/cluster_watcher.h"
#include "common/config.h"
#include "common/model/rebalance.h"
#include "common/table/rebalance_inputs.h"
#include "common/table/score_table_reader.h"

// NETSCORE_REBALANCE_LABEL: the pod a descheduler should evict from each over-utilised node,
// chosen by model::nominate_evictions from the utilisation the descheduler reads (as the refresh
// last read it), the collector's own table (link speeds, pod prices) and watched pods, labelled
// kRebalanceLabel=kRebalanceLabelValue with a merge patch; pods no longer chosen lose the label.
// A thread of its own with its own API session, so a slow API server never delays a refresh.
namespace netscore::collector {

// The merge patch that sets (true) or removes the label.
std::string rebalance_label_patch(bool nominated);

// What the labeler and the refresh share (thread-safe): the labeler writes its counts, which the
// publisher reads when it writes the collector status; the publisher passes on each refresh's
// reading of the utilisation the descheduler reads, which the labeler nominates by.
struct RebalanceStatus {
  std::atomic<std::uint32_t> nominees{0};
  std::atomic<std::uint64_t> patches_total{0};
  std::atomic<std::uint64_t> patch_failures_total{0};

  // Null: not read yet, or the last read failed.
  void set_utilisation(std::shared_ptr<const model::LinkLoads> utilisation) {
    std::lock_guard lock(mutex_);
    utilisation_ = std::move(utilisation);
  }
  std::shared_ptr<const model::LinkLoads> utilisation() const {
    std::lock_guard lock(mutex_);
    return utilisation_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const model::LinkLoads> utilisation_{};
};

class RebalanceLabeler {
 public:
  struct Options {
    KubeConfig kube{};
    std::string table{};  // the collector's score table, read back
    model::RebalanceSettings settings{};
    std::chrono::milliseconds interval{std::chrono::seconds(15)};
    // A workload whose nominee left (evicted, most likely) gets no other nominee this long: the
    // descheduler should not move it twice in a row.
    std::chrono::milliseconds rest{std::chrono::minutes(10)};
    // Patches per round at most; the rest wait for the next round.
    std::size_t max_writes = 8;
    std::function<std::int64_t()> now_ms{};  // Unix ms; tests pin it
  };
  struct Counters {
    std::uint64_t rounds = 0;
    std::uint64_t labelled = 0;    // patches that set the label
    std::uint64_t unlabelled = 0;  // patches that removed it
    std::uint64_t failures = 0;    // patches without a 200 (a vanished pod's 404 not counted)
  };

  static Options options(const Config& config);

  // `status` outlives the labeler.
  RebalanceLabeler(Options options, ClusterState& state, const ClusterWatcher& watcher,
                   RebalanceStatus& status);
  RebalanceLabeler(const RebalanceLabeler&) = delete;
  RebalanceLabeler& operator=(const RebalanceLabeler&) = delete;
  ~RebalanceLabeler();

  void start();
  void stop();
  // One look: nominate, then patch what differs from the watched labels. start() runs it every
  // interval; tests call it directly instead.
  void round();
  Counters counters() const;

 private:
  void run(std::stop_token stop);
  // The patch of one pod; false when the pod is gone.
  void write(const std::string& pod, bool nominated, std::int64_t now);

  Options options_;
  ClusterState& state_;
  const ClusterWatcher& watcher_;
  RebalanceStatus& status_;
  std::stop_source stop_{};  // before client_, which is built with its token
  KubeClient client_;
  std::optional<ScoreTableReader> reader_;
  model::NominationMemory memory_;
  // The direction the last reading's figure was in: a change is logged.
  std::optional<model::Direction> figure_direction_;
  // What was written and when: the watch shows a patch only later.
  std::map<std::string, std::pair<bool, std::int64_t>> written_{};
  mutable std::mutex mutex_;  // counters_
  Counters counters_{};
  std::jthread thread_{};
};

}  // namespace netscore::collector
