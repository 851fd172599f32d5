#pragma once

#include <cmath>
#include <cstdint>

#include "bench/closed_loop/workload/workload.h"
#include "common/clock.h"

// Virtual time as the product's clocks read it: the loop's seconds (negative before the trace
// starts) on a wall clock (Unix ms) and a monotonic one (ns) that stay positive throughout.
namespace netscore::sim {

class VirtualClock {
 public:
  static constexpr std::int64_t kEpochMs = kTraceEpochMs;
  static constexpr double kMonoOrigin_s = 1e6;

  static std::int64_t wall_ms(double t) { return kEpochMs + std::llround(t * 1000); }
  static std::int64_t mono_ns(double t) { return std::llround((t + kMonoOrigin_s) * 1e9); }

  void set(double t) { t_ = t; }
  double now() const { return t_; }
  std::int64_t wall_ms() const { return wall_ms(t_); }
  std::int64_t mono_ns() const { return mono_ns(t_); }
  // The product's clocks reading this one; it must outlive them.
  Clocks clocks() const {
    return {.wall_ms = [this] { return wall_ms(); }, .mono_ns = [this] { return mono_ns(); }};
  }

 private:
  double t_ = 0;
};

}  // namespace netscore::sim
