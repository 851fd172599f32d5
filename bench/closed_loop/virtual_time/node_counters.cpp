#include "bench/closed_loop/virtual_time/node_counters.h"

#include <utility>

namespace netscore::sim {

NodeCounters::NodeCounters(std::vector<double> receive, std::vector<double> transmit,
                           std::vector<double> counter_receive,
                           std::vector<double> counter_transmit, double t0_s, std::int64_t keep_ms)
    : receive_(std::move(receive)),
      transmit_(std::move(transmit)),
      counter_receive_(std::move(counter_receive)),
      counter_transmit_(std::move(counter_transmit)),
      counted_to_s_(receive_.size(), t0_s),
      receive_series_(receive_.size()),
      transmit_series_(receive_.size()),
      keep_ms_(keep_ms) {}

void NodeCounters::advance(std::size_t node, double t_s) {
  counter_receive_[node] += receive_[node] * (t_s - counted_to_s_[node]);
  counter_transmit_[node] += transmit_[node] * (t_s - counted_to_s_[node]);
  counted_to_s_[node] = t_s;
}

void NodeCounters::add(std::size_t node, double t_s, double receive, double transmit) {
  advance(node, t_s);
  receive_[node] += receive;
  transmit_[node] += transmit;
}

void NodeCounters::scrape(double t_s, std::int64_t t_ms) {
  for (std::size_t n = 0; n < receive_.size(); ++n) {
    advance(n, t_s);
    for (auto [series, counter] : {std::pair{&receive_series_[n], counter_receive_[n]},
                                   std::pair{&transmit_series_[n], counter_transmit_[n]}}) {
      series->t_ms.push_back(t_ms);
      series->v.push_back(counter);
      trim(*series, t_ms - keep_ms_);
    }
  }
}

}  // namespace netscore::sim
