#include "common/model/burst_memory.h"

#include <algorithm>
#include <unordered_map>

#include "common/model/pricing.h"
#include "common/model/name_hash.h"
#include "common/model/scoring.h"

namespace netscore::model {
namespace {

// splitmix64's finaliser: a well-mixed tie-break from the pod's and the node's hashes.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t owner_hash(std::string_view owner) {
  return owner.empty() ? 0 : name_hash(owner) | 1;
}

}  // namespace

void BurstMemory::assumed_prices(std::string_view owner, std::span<const std::uint64_t> name_hashes,
                                 std::span<std::uint32_t> prices, std::int64_t published_ns,
                                 std::int64_t window_ns) const {
  std::fill(prices.begin(), prices.end(), 0U);
  if (window_ns <= 0 || name_hashes.size() != prices.size() || recent_.empty()) return;
  const std::uint64_t own = owner_hash(owner);
  // The recent ones are few (a window's worth of scheduling), the nodes many: sum per node once.
  std::unordered_map<std::uint64_t, std::uint32_t> per_node;
  for (auto it = recent_.rbegin(); it != recent_.rend() && published_ns - it->at_ns < window_ns;
       ++it) {
    const bool sibling = own != 0 && it->owner_hash == own;
    per_node[it->node_hash] +=
        static_cast<std::uint32_t>(sibling ? kSiblingPodPrices : kOtherPodPrices);
  }
  for (std::size_t i = 0; i < prices.size(); ++i) {
    const auto found = per_node.find(name_hashes[i]);
    if (found != per_node.end()) prices[i] = found->second;
  }
}

std::size_t BurstMemory::recommend(std::string_view owner, std::string_view pod_uid,
                                   std::span<const std::uint64_t> name_hashes,
                                   std::span<std::int64_t> answers,
                                   std::span<const std::int16_t> percent, std::int64_t now_ns,
                                   std::int64_t window_ns, std::uint32_t siblings_per_node) {
  const std::size_t none = answers.size();
  if (window_ns <= 0 || name_hashes.size() != answers.size() || percent.size() != answers.size())
    return none;
  const std::uint64_t pod_hash = name_hash(pod_uid);
  const std::uint64_t own = owner_hash(owner);
  std::unordered_map<std::uint64_t, std::uint32_t> siblings;  // per node hash
  if (own != 0 && siblings_per_node > 0) {
    for (const Recommendation& r : recent_) {
      if (r.owner_hash == own && now_ns - r.at_ns <= kKeepWindows * window_ns)
        ++siblings[r.node_hash];
    }
  }
  const auto full = [&](std::size_t i) {
    const auto found = siblings.find(name_hashes[i]);
    return found != siblings.end() && found->second >= siblings_per_node;
  };
  std::size_t best = none;
  bool best_full = false;
  std::uint64_t best_tie = 0;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (percent[i] < 0) continue;
    const bool is_full = !siblings.empty() && full(i);
    const std::uint64_t tie = mix(pod_hash ^ name_hashes[i]);
    const bool better = best == none || (best_full && !is_full) ||
                        (best_full == is_full && (percent[i] > percent[best] ||
                                                  (percent[i] == percent[best] && tie > best_tie)));
    if (better) {
      best = i;
      best_full = is_full;
      best_tie = tie;
    }
  }
  if (best == none) return none;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (percent[i] >= 0) answers[i] = std::min<std::int64_t>(answers[i], kMaxExtenderScore - 1);
  }
  answers[best] = kMaxExtenderScore;
  while (!recent_.empty() && (recent_.size() >= capacity_ ||
                              now_ns - recent_.front().at_ns > kKeepWindows * window_ns)) {
    recent_.pop_front();
  }
  // Server threads take their clocks before the lock: keep the memory in time order regardless,
  // so that assumed_prices can stop at the first recommendation a snapshot shows.
  const std::int64_t at_ns = recent_.empty() ? now_ns : std::max(now_ns, recent_.back().at_ns);
  if (capacity_ > 0)
    recent_.push_back({.owner_hash = own, .node_hash = name_hashes[best], .at_ns = at_ns});
  return best;
}

}  // namespace netscore::model
