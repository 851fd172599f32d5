#include "common/model/freshness.h"

namespace netscore::model {

SnapshotAge snapshot_age(std::int64_t published_mono_ns, const CollectorProgress* progress,
                         std::int64_t now_mono_ns, std::int64_t max_age_ns) noexcept {
  SnapshotAge age{.fresh = true, .age_ns = now_mono_ns - published_mono_ns};
  if (age.age_ns > max_age_ns) {
    age.fresh = false;
  } else if (progress != nullptr && progress->consecutive_failures > 0 &&
             now_mono_ns - progress->last_success_mono_ns > max_age_ns) {
    age = {.fresh = false, .age_ns = now_mono_ns - progress->last_success_mono_ns};
  }
  return age;
}

}  // namespace netscore::model
