#include "collector/refresh_loop.h"

#include "common/clock.h"

namespace netscore::collector {

RefreshLoop::RefreshLoop(Options options, Refresher& refresher, PrometheusClient& client)
    : options_(std::move(options)), refresher_(refresher), client_(client) {
  if (!options_.eval_time_ms) options_.eval_time_ms = wall_now_ms;
}

void RefreshLoop::run() {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto interval = options_.interval;
  const Refresher::BackoffWait backoff = [this](std::chrono::milliseconds delay) {
    return wait_until(Clock::now() + delay);
  };
  for (std::int64_t tick = 0;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    refresher_.refresh(options_.eval_time_ms(), backoff);
    {
      std::lock_guard lock(mutex_);
      ++refreshes_;
    }
    const auto elapsed = Clock::now() - start;
    tick = std::max(tick + 1, static_cast<std::int64_t>(elapsed / interval) + 1);
    if (!wait_until(start + tick * interval)) return;
  }
}

bool RefreshLoop::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_until(lock, deadline, [this] { return stopping_; });
}

void RefreshLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  client_.abort();
  wake_.notify_all();
}

std::uint64_t RefreshLoop::refreshes() const {
  std::lock_guard lock(mutex_);
  return refreshes_;
}

}  // namespace netscore::collector
