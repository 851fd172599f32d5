#pragma once

#include <cstdint>

// One event of a closed-loop run, ordered by time and, at equal times, by the order it was queued
// (so both levels replay a trace deterministically); min-heap order for std::priority_queue with
// std::greater.
namespace netscore::sim {

template <class Kind>
struct TimedEvent {
  double t = 0;
  std::uint64_t seq = 0;
  Kind kind{};
  std::uint32_t arg = 0;
  bool operator>(const TimedEvent& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

}  // namespace netscore::sim
