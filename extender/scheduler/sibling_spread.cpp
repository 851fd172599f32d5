#include "extender/scheduler/sibling_spread.h"

#include <algorithm>

#include "common/scoring.h"
#include "common/table/score_table_layout.h"

namespace netscore::extender {
namespace {

// splitmix64's finaliser: a well-mixed tie-break from the pod's and the node's hashes.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

SiblingSpread::List* SiblingSpread::find_locked(std::string_view owner, std::int64_t now_ns,
                                                std::int64_t window_ns) {
  const auto expire = [&](List& list) {
    while (!list.empty() && now_ns - list.front().at_ns > kKeepWindows * window_ns)
      list.pop_front();
  };
  if (now_ns >= next_sweep_ns_) {
    for (auto it = recent_.begin(); it != recent_.end();) {
      expire(it->second);
      it = it->second.empty() ? recent_.erase(it) : std::next(it);
    }
    next_sweep_ns_ = now_ns + window_ns;
  }
  const auto it = recent_.find(std::string(owner));
  if (it == recent_.end()) return nullptr;
  expire(it->second);
  return &it->second;
}

void SiblingSpread::unconfirmed(std::string_view owner, std::span<const std::uint64_t> name_hashes,
                                std::span<std::uint32_t> times, std::int64_t now_ns,
                                std::int64_t published_ns, std::int64_t window_ns) {
  std::lock_guard lock(mutex_);
  unconfirmed_locked(owner, name_hashes, times, now_ns, published_ns, window_ns);
}

std::size_t SiblingSpread::recommend(std::string_view owner, std::string_view pod_uid,
                                     std::span<const std::uint64_t> name_hashes,
                                     std::span<std::int64_t> answers,
                                     std::span<const std::int16_t> percent, std::int64_t now_ns,
                                     std::int64_t window_ns) {
  std::lock_guard lock(mutex_);
  return recommend_locked(owner, pod_uid, name_hashes, answers, percent, now_ns, window_ns);
}

void SiblingSpread::unconfirmed_locked(std::string_view owner,
                                       std::span<const std::uint64_t> name_hashes,
                                       std::span<std::uint32_t> times, std::int64_t now_ns,
                                       std::int64_t published_ns, std::int64_t window_ns) {
  std::fill(times.begin(), times.end(), 0U);
  if (window_ns <= 0 || owner.empty() || name_hashes.size() != times.size()) return;
  const List* list = find_locked(owner, now_ns, window_ns);
  if (list == nullptr) return;
  for (std::size_t i = 0; i < times.size(); ++i) {
    times[i] = static_cast<std::uint32_t>(
        std::count_if(list->begin(), list->end(), [&](const Recommendation& r) {
          return r.node_hash == name_hashes[i] && published_ns - r.at_ns < window_ns;
        }));
  }
}

std::size_t SiblingSpread::recommend_locked(std::string_view owner, std::string_view pod_uid,
                                            std::span<const std::uint64_t> name_hashes,
                                            std::span<std::int64_t> answers,
                                            std::span<const std::int16_t> percent,
                                            std::int64_t now_ns, std::int64_t window_ns) {
  const std::size_t none = answers.size();
  if (window_ns <= 0 || owner.empty() || name_hashes.size() != answers.size() ||
      percent.size() != answers.size()) {
    return none;
  }
  const std::uint64_t pod_hash = shm::name_hash(pod_uid);
  std::size_t best = none;
  std::uint64_t best_tie = 0;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (percent[i] < 0) continue;
    const std::uint64_t tie = mix(pod_hash ^ name_hashes[i]);
    if (best == none || percent[i] > percent[best] ||
        (percent[i] == percent[best] && tie > best_tie)) {
      best = i;
      best_tie = tie;
    }
  }
  if (best == none) return none;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (percent[i] >= 0) answers[i] = std::min<std::int64_t>(answers[i], kMaxExtenderScore - 1);
  }
  answers[best] = kMaxExtenderScore;
  List* list = find_locked(owner, now_ns, window_ns);
  if (list == nullptr) {
    if (recent_.size() >= max_workloads_) return best;
    list = &recent_[std::string(owner)];
  }
  list->push_back({.node_hash = name_hashes[best], .at_ns = now_ns});
  return best;
}

}  // namespace netscore::extender
