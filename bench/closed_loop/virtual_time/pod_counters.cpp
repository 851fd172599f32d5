#include "bench/closed_loop/virtual_time/pod_counters.h"

#include <utility>

namespace netscore::sim {

void PodCounters::advance(Counter& counter, std::int64_t t_ms) {
  const double seconds = static_cast<double>(t_ms - counter.counted_to_ms) / 1000;
  counter.received += counter.receive * seconds;
  counter.transmitted += counter.transmit * seconds;
  counter.counted_to_ms = t_ms;
}

void PodCounters::start(std::uint32_t pod, std::string name, std::int64_t t_ms, double receive,
                        double transmit, double running_s) {
  // The scrape that starts its traffic finds the sandbox at what it has counted so far.
  const double received = receive * running_s, transmitted = transmit * running_s;
  pods_[pod] = {.name = std::move(name),
                .receive = receive,
                .transmit = transmit,
                .received = received,
                .transmitted = transmitted,
                .counted_to_ms = t_ms,
                .receive_series = {.t_ms = {t_ms}, .v = {received}},
                .transmit_series = {.t_ms = {t_ms}, .v = {transmitted}}};
}

void PodCounters::set_rates(std::uint32_t pod, std::int64_t t_ms, double receive, double transmit) {
  const auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  advance(it->second, t_ms);
  it->second.receive = receive;
  it->second.transmit = transmit;
}

void PodCounters::stop(std::uint32_t pod) {
  pods_.erase(pod);
}

void PodCounters::scrape(std::int64_t t_ms) {
  for (auto& [pod, counter] : pods_) {
    advance(counter, t_ms);
    for (auto [series, value] : {std::pair{&counter.receive_series, counter.received},
                                 std::pair{&counter.transmit_series, counter.transmitted}}) {
      if (!series->t_ms.empty() && series->t_ms.back() == t_ms) continue;  // started at this scrape
      series->t_ms.push_back(t_ms);
      series->v.push_back(value);
      trim(*series, t_ms - keep_ms_);
    }
  }
}

std::vector<PodRead> PodCounters::read(std::int64_t eval_ms, std::int64_t range_ms,
                                       const std::function<bool(std::uint32_t)>& wanted,
                                       Function function) const {
  std::vector<PodRead> out;
  for (const auto& [pod, counter] : pods_) {
    if (wanted && !wanted(pod)) continue;
    const auto receive = evaluate(function, counter.receive_series, eval_ms, range_ms);
    const auto transmit = evaluate(function, counter.transmit_series, eval_ms, range_ms);
    if (!receive && !transmit) continue;
    out.push_back({.pod = pod,
                   .rates = {.name = counter.name,
                             .receive = receive.value_or(-1),
                             .transmit = transmit.value_or(-1)}});
  }
  return out;
}

}  // namespace netscore::sim
