#pragma once

#include <chrono>
#include <thread>

// Waiting for a condition another process or thread brings about: poll it until it holds or the
// deadline passes, then look once more, so a slow machine only makes a failing test slower.
namespace netscore::testing {

template <class Condition>
bool eventually(Condition&& done, std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

}  // namespace netscore::testing
