#pragma once

#include <time.h>

#include <cstdint>
#include <functional>

namespace netscore {

// CLOCK_MONOTONIC is one clock for every process on the host (containers of a pod share it), so
// the collector's publish time and the extender's "now" compare directly, and a wall-clock jump
// can never make an old table look fresh. Wall time is kept only for display.
inline std::int64_t mono_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline std::int64_t mono_now_ms() {
  return mono_now_ns() / 1'000'000;
}

// Monotonic milliseconds, injected where what is due depends on time: tests drive it instead of
// waiting for it.
using MonoClockMs = std::function<std::int64_t()>;

inline std::int64_t wall_now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// The clocks a component reads, injected where something else drives time: the closed-loop
// simulator runs the collector's publisher and table writer in virtual time.
struct Clocks {
  std::function<std::int64_t()> wall_ms = wall_now_ms;
  std::function<std::int64_t()> mono_ns = mono_now_ns;
};

}  // namespace netscore
