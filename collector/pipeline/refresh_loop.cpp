#include "collector/pipeline/refresh_loop.h"

#include "common/clock.h"

namespace netscore::collector {

RefreshLoop::RefreshLoop(Options options, Measurer& measurer, Publisher& publisher,
                         PrometheusClient& client)
    : options_(std::move(options)), measurer_(measurer), publisher_(publisher), client_(client) {
  if (!options_.eval_time_ms) options_.eval_time_ms = wall_now_ms;
}

void RefreshLoop::run(std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  // The HTTP attempt in flight would otherwise run to its timeout.
  const std::stop_callback abort(stop, [this] { client_.abort(); });
  const auto start = Clock::now();
  const auto interval = options_.interval;
  const Measurer::BackoffWait backoff = [this, &stop](std::chrono::milliseconds delay) {
    return wait_until(stop, Clock::now() + delay);
  };
  for (std::int64_t tick = 0;;) {
    if (stop.stop_requested()) return;
    publisher_.publish(measurer_.measure(options_.eval_time_ms(), backoff));
    {
      std::lock_guard lock(mutex_);
      ++refreshes_;
    }
    const auto elapsed = Clock::now() - start;
    tick = std::max(tick + 1, static_cast<std::int64_t>(elapsed / interval) + 1);
    if (!wait_until(stop, start + tick * interval)) return;
  }
}

bool RefreshLoop::wait_until(std::stop_token stop, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  // Nothing but a stop request ends a wait early.
  wake_.wait_until(lock, stop, deadline, [] { return false; });
  return !stop.stop_requested();
}

std::uint64_t RefreshLoop::refreshes() const {
  std::lock_guard lock(mutex_);
  return refreshes_;
}

}  // namespace netscore::collector
