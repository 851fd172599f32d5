#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>

#include "common/model/burst_memory.h"
#include "common/model/prioritize.h"

// The extender's one burst memory (common/model/burst_memory.h), shared by every server thread:
// each prioritize decision reads what earlier pods were recommended and adds its own under one
// mutex, held for O(nodes + the recommendations of the last window).
namespace netscore::extender {

class BurstSpread {
 public:
  std::size_t prioritize(const model::PrioritizeSettings& settings, const model::TableRead& table,
                         const model::PodToPlace& pod, std::int64_t now_ns,
                         std::span<std::int64_t> scores, std::span<std::int16_t> percent) {
    std::lock_guard lock(mutex_);
    return model::prioritize(settings, table, pod, now_ns, &memory_, scores, percent);
  }

  std::size_t remembered() {
    std::lock_guard lock(mutex_);
    return memory_.size();
  }

 private:
  std::mutex mutex_;
  model::BurstMemory memory_;
};

}  // namespace netscore::extender
