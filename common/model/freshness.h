#pragma once

#include <cstdint>

// Whether a snapshot may steer pods, decided once: the extender's lookups and the closed-loop
// simulator ask it (pure: thread-safe). Times are monotonic nanoseconds, the clock snapshots are
// published on.
namespace netscore::model {

// What the collector's status says of its progress.
struct CollectorProgress {
  std::uint64_t consecutive_failures = 0;
  std::int64_t last_success_mono_ns = 0;
};

struct SnapshotAge {
  bool fresh = false;
  std::int64_t age_ns = 0;  // of the data: since the publish, or since the last success
};

// Stale when published longer ago than max_age, or when the collector has been failing for
// longer than max_age: a failing collector might still republish its last snapshot, so what
// counts is how long ago it last succeeded. `progress` null: no status to read.
SnapshotAge snapshot_age(std::int64_t published_mono_ns, const CollectorProgress* progress,
                         std::int64_t now_mono_ns, std::int64_t max_age_ns) noexcept;

}  // namespace netscore::model
