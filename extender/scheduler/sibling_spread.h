#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

// The replicas of a workload reach prioritize one after another within milliseconds, before any
// of their bindings reaches the table, so every one of them would see the same quietest node and
// a burst would pile onto it. Like kube-scheduler's own cache, which assumes a pod on its node
// before the binding is confirmed, prioritize therefore recommends exactly one node per pod of a
// workload (answer 10, every other node at most 9) and assumes the pod there until a snapshot
// published `window` after the recommendation exists. Until then the workload's next pods see
// that node with one more pod (the caller prices it). The assumption is not ended early when the
// table already shows the binding: measured in the closed loop, counting a just-started workload's
// pod twice for those few hundred milliseconds spreads bursts better than ending it at once. Ties
// between equally good nodes are broken by a hash of the pod and the node, so replicas that see
// the same table do not all break them the same way. Keyed by the pod's controlling owner; pods
// without one are scored as before.
// Thread-safe: one mutex, held for O(nodes + recent recommendations of the workload) (plus the
// caller's scoring in score_and_recommend).
namespace netscore::extender {

class SiblingSpread {
 public:
  // At most max_workloads are remembered at once; beyond that, pods of further workloads are
  // scored without memory until old entries expire.
  explicit SiblingSpread(std::size_t max_workloads = 4096) : max_workloads_(max_workloads) {}

  // times[i]: how often node i was recommended for `owner` after published_ns - window_ns
  // (published_ns: the snapshot's publish time).
  void unconfirmed(std::string_view owner, std::span<const std::uint64_t> name_hashes,
                   std::span<std::uint32_t> times, std::int64_t now_ns, std::int64_t published_ns,
                   std::int64_t window_ns);

  // `percent`: the 0..100 behind each answer, -1 for a neutral node (never recommended). Makes
  // the best node the only 10 and remembers it for `owner`; returns its index, or answers.size()
  // when no node is usable.
  std::size_t recommend(std::string_view owner, std::string_view pod_uid,
                        std::span<const std::uint64_t> name_hashes, std::span<std::int64_t> answers,
                        std::span<const std::int16_t> percent, std::int64_t now_ns,
                        std::int64_t window_ns);

  struct Pod {
    std::string_view owner;
    std::string_view pod_uid;
    std::span<const std::uint64_t> name_hashes;
    std::int64_t now_ns = 0;
    std::int64_t published_ns = 0;  // the snapshot's publish time
    std::int64_t window_ns = 0;
  };
  // unconfirmed() into `times`, then `score()` (which fills `answers` and `percent` from them),
  // then recommend(), under one lock: a pod of a workload takes the mutex once.
  template <class Score>
  std::size_t score_and_recommend(const Pod& pod, std::span<std::uint32_t> times,
                                  std::span<std::int64_t> answers,
                                  std::span<const std::int16_t> percent, Score&& score) {
    std::lock_guard lock(mutex_);
    unconfirmed_locked(pod.owner, pod.name_hashes, times, pod.now_ns, pod.published_ns,
                       pod.window_ns);
    score();
    return recommend_locked(pod.owner, pod.pod_uid, pod.name_hashes, answers, percent, pod.now_ns,
                            pod.window_ns);
  }

 private:
  struct Recommendation {
    std::uint64_t node_hash = 0;
    std::int64_t at_ns = 0;
  };
  using List = std::deque<Recommendation>;
  void unconfirmed_locked(std::string_view owner, std::span<const std::uint64_t> name_hashes,
                          std::span<std::uint32_t> times, std::int64_t now_ns,
                          std::int64_t published_ns, std::int64_t window_ns);
  std::size_t recommend_locked(std::string_view owner, std::string_view pod_uid,
                               std::span<const std::uint64_t> name_hashes,
                               std::span<std::int64_t> answers,
                               std::span<const std::int16_t> percent, std::int64_t now_ns,
                               std::int64_t window_ns);
  // Drops recommendations older than kKeepWindows windows (a table that stopped publishing must
  // not keep them forever): for every workload at most once per window, else for the one asked
  // about.
  List* find_locked(std::string_view owner, std::int64_t now_ns, std::int64_t window_ns);

  static constexpr std::int64_t kKeepWindows = 10;
  std::size_t max_workloads_;
  std::mutex mutex_;
  std::unordered_map<std::string, List> recent_;
  std::int64_t next_sweep_ns_ = 0;
};

}  // namespace netscore::extender
