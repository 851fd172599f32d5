#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/pipeline/pod_rates.h"
#include "common/model/inputs.h"
#include "common/model/placement_ledger.h"

// The pods the read of every pod does not price yet, read every refresh by name: a pod placed
// moments ago would otherwise wait for the next read of every pod (pod_traffic_interval())
// to be priced by its own traffic. One request per direction over a short range
// (pod_traffic_recent_range()), naming at most kMaxRecentPods pods.
namespace netscore::collector {

// The most pods one recent read names. Beyond it the oldest are left out: the next read of every
// pod prices them soonest, and the window already holds more of their traffic, while the newest
// are the ones priced at a guess until measured. The bound keeps what the read costs every refresh
// bounded too: Prometheus looks each name of the alternation up in its index.
inline constexpr std::size_t kMaxRecentPods = 256;

// A recent pod's rates and when they were read (Unix ms).
struct RecentPodRates {
  PodRates rates;
  std::int64_t eval_time_ms = 0;
};

// What the recent reads found, as of the last one: a value handed to the publisher with each
// measurement.
struct RecentPodTraffic {
  std::int64_t eval_time_ms = 0;  // of the last read that answered; 0: none yet
  std::int64_t range_ms = 0;      // pod_traffic_recent_range()
  // Each pod still unpriced by the read of every pod, at its last answer, by "namespace/name":
  // kept while the read of every pod does not price it and it is placed within the window.
  std::unordered_map<std::string, RecentPodRates> pods{};
  std::uint32_t asked = 0;      // pods the last read named
  std::uint32_t answered = 0;   // of them, those with series
  std::uint32_t left_out = 0;   // unpriced pods beyond kMaxRecentPods, not named
  std::string receive_query{};  // the last read's
  std::string transmit_query{};
  std::string error{};  // why the last read failed; empty when it did not
};

// Which pods to read: of `placed` (pods off the host network), those the read of every pod as of
// `full_read` does not price (not in its answer, or too young then: model::window_measures_pod),
// newest first. `asked` holds at most kMaxRecentPods of them; `unpriced` all of them.
struct RecentSelection {
  std::vector<std::string> unpriced{};
  std::vector<std::string> asked{};
};
RecentSelection select_recent_pods(std::vector<model::PlacedPod> placed,
                                   const std::unordered_map<std::string, PodRates>& full_pods,
                                   const model::LoadWindow& full_read);

// The time since which a placed pod may be unpriced by the read of every pod as of `full_read`:
// one placed earlier was wholly in its window, priced when it had series at all. No read yet: any.
std::int64_t unpriced_since_ms(const model::LoadWindow& full_read);

}  // namespace netscore::collector
