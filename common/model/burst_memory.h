#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string_view>

// Pods reach prioritize one after another within milliseconds, before any of their bindings
// reaches the table, so every one of them would see the same quietest node and a burst would
// pile onto it. Like kube-scheduler's own cache, which assumes a pod on its node before the
// binding is confirmed, prioritize recommends exactly one node per pod and assumes the pod there
// until a snapshot published `window` after the recommendation exists; until then later pods see
// that node with the pod on it (model/pricing.h says at what price: more for the same workload).
// The assumption is not ended early when the table already shows the binding: measured in the
// closed loop, counting a just-started pod twice for those few hundred milliseconds spreads bursts
// better than ending it at once.
// Not thread-safe: the extender keeps one behind a mutex, the simulator one per run. Time is what
// the caller passes (any monotonic nanoseconds, the same clock as the snapshots' publish times).
namespace netscore::model {

class BurstMemory {
 public:
  // At most `capacity` recommendations are remembered; beyond that the oldest are forgotten.
  explicit BurstMemory(std::size_t capacity = 65536) : capacity_(capacity) {}

  // prices[i]: the average-pod prices of the pods recommended for node i that a snapshot
  // published at published_ns cannot show yet, as seen by a pod of `owner` (its controlling
  // owner's uid; empty when it has none).
  void assumed_prices(std::string_view owner, std::span<const std::uint64_t> name_hashes,
                      std::span<std::uint32_t> prices, std::int64_t published_ns,
                      std::int64_t window_ns) const;

  // `percent`: the 0..100 behind each answer, -1 for a neutral node (never recommended). Makes
  // the best node the only 10 (ties broken by a hash of the pod and the node, so pods that see the
  // same table do not all break them the same way) and remembers it; returns its index, or
  // answers.size() when no node is usable. With `siblings_per_node` > 0 and an owner, a node
  // already recommended that many pods of the owner among those remembered is passed over while
  // another usable node is not.
  std::size_t recommend(std::string_view owner, std::string_view pod_uid,
                        std::span<const std::uint64_t> name_hashes, std::span<std::int64_t> answers,
                        std::span<const std::int16_t> percent, std::int64_t now_ns,
                        std::int64_t window_ns, std::uint32_t siblings_per_node = 0);

  std::size_t size() const { return recent_.size(); }

 private:
  struct Recommendation {
    std::uint64_t owner_hash = 0;  // 0: no controlling owner
    std::uint64_t node_hash = 0;
    std::int64_t at_ns = 0;
  };
  // A table that stopped publishing must not keep recommendations forever; what is kept is also
  // what siblings_per_node counts: one burst.
  static constexpr std::int64_t kKeepWindows = 10;
  std::size_t capacity_;
  std::deque<Recommendation> recent_;  // in recommendation order
};

}  // namespace netscore::model
