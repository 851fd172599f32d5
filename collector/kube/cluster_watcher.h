#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>
#include <thread>

#include "collector/kube/cluster_state.h"
#include "collector/kube/kube_client.h"
#include "common/table/score_table_layout.h"

namespace netscore::collector {

struct WatcherStatus {
  shm::WatchState state = shm::WatchState::off;
  std::uint64_t errors_total = 0;
  std::uint64_t relists_total = 0;
  std::uint64_t malformed_total = 0;  // events that could not be parsed, skipped
  std::int64_t synced_wall_ms = 0;
  std::int64_t last_event_wall_ms = 0;
  std::int64_t last_event_mono_ns = 0;
  std::string resource_version{};  // of the pods watch
  std::string error{};             // latest failure; empty while healthy
};

// Where the publisher learns whether the watched state is whole: the watcher, or in virtual time
// the closed-loop simulator, whose cluster is always synced.
class WatchStatusSource {
 public:
  virtual ~WatchStatusSource() = default;
  virtual WatcherStatus status() const = 0;
};

// List + watch of bound pods and of nodes into a ClusterState, one thread per resource, the
// way client-go's Reflector does it, written once for any resource: paginated list
// (limit/continue), replace the state (so objects deleted while disconnected vanish), watch from
// the list's resourceVersion with allowWatchBookmarks and a randomised timeoutSeconds, resume
// after a clean end from the last RV seen, relist at once on 410 (HTTP or ERROR event), and after
// any other failure (401/403, 5xx, transport, a watch ending within a second without events) back
// off exponentially with jitter and relist. Malformed events are counted and skipped.
// Thread-safe: start/stop and status() from any thread; `on_change` runs on a watcher thread
// after each change.
class ClusterWatcher final : public WatchStatusSource {
 public:
  struct Options {
    KubeConfig kube{};
    LabelRules rules{};
    std::chrono::milliseconds watch_timeout_min{std::chrono::minutes(5)};
    std::chrono::milliseconds watch_timeout_max{std::chrono::minutes(10)};
    // The client gives a watch this long beyond timeoutSeconds before calling it stalled.
    std::chrono::milliseconds watch_grace{std::chrono::seconds(30)};
    std::chrono::milliseconds backoff_initial{800};
    std::chrono::milliseconds backoff_max{std::chrono::seconds(30)};
    unsigned page_limit = 500;
    std::function<void()> on_change{};
  };

  ClusterWatcher(Options options, ClusterState& state);
  ClusterWatcher(const ClusterWatcher&) = delete;
  ClusterWatcher& operator=(const ClusterWatcher&) = delete;
  ~ClusterWatcher();

  void start();
  // Ends both loops, a list or watch in flight included, and waits for them.
  void stop();
  WatcherStatus status() const override;

  // What the loop needs to know of one resource; defined with the two resources in the source.
  template <class Facts>
  struct Resource;

 private:
  enum class WatchEnd { resume, relist, failed, stopped };
  template <class Facts>
  void reflect(const Resource<Facts>& resource, std::stop_token stop);
  // False when stopping.
  template <class Facts>
  bool list(const Resource<Facts>& resource, KubeClient& client, std::string& resource_version);
  template <class Facts>
  WatchEnd watch(const Resource<Facts>& resource, KubeClient& client, std::string& resource_version,
                 std::mt19937_64& random, std::string& error);
  // False when stopped first.
  bool wait(std::chrono::milliseconds delay, std::stop_token stop);
  void set_synced(std::size_t slot, bool synced, const std::string& error);
  void changed();

  Options options_;
  ClusterState& state_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  bool synced_[2] = {false, false};
  bool failing_[2] = {false, false};
  WatcherStatus status_;
  std::jthread threads_[2];
};

}  // namespace netscore::collector
