#include "bench/soak/soak_traffic.h"

#include <memory>
#include <thread>

#include <boost/system/system_error.hpp>

namespace netscore::bench {

void TrafficTally::answered(double latency_us, unsigned status, const std::string& body) {
  const std::lock_guard lock(mutex_);
  ++current_.requests;
  current_.latency_us.push_back(latency_us);
  if (status < 200 || status > 299) {
    if (current_.non2xx++ == 0)
      current_.first_failure = std::to_string(status) + " " + body.substr(0, 300);
  }
}

void TrafficTally::transport_error() {
  const std::lock_guard lock(mutex_);
  ++current_.transport_errors;
}

IntervalTally TrafficTally::take() {
  IntervalTally out;
  const std::lock_guard lock(mutex_);
  std::swap(out, current_);
  return out;
}

void merge(IntervalTally& a, IntervalTally&& b) {
  a.requests += b.requests;
  a.non2xx += b.non2xx;
  a.transport_errors += b.transport_errors;
  a.latency_us.insert(a.latency_us.end(), b.latency_us.begin(), b.latency_us.end());
  if (a.first_failure.empty()) a.first_failure = std::move(b.first_failure);
}

void run_client(std::uint16_t port, const std::vector<testing::WireRequest>& requests,
                const std::atomic<bool>& stop, std::chrono::steady_clock::time_point deadline,
                TrafficTally& tally) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kTimeout = std::chrono::seconds(5);
  std::unique_ptr<testing::HttpConnection> client;
  for (std::size_t i = 0; !stop.load(std::memory_order_relaxed) && Clock::now() < deadline; ++i) {
    try {
      if (!client) client = std::make_unique<testing::HttpConnection>(port, kTimeout);
      const auto t0 = Clock::now();
      const testing::WireResponse res = client->send(requests[i % requests.size()]);
      tally.answered(std::chrono::duration<double, std::micro>(Clock::now() - t0).count(),
                     res.result_int(), res.body());
    } catch (const boost::system::system_error&) {
      tally.transport_error();
      client.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace netscore::bench
