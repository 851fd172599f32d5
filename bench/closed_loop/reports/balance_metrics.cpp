#include "bench/closed_loop/reports/balance_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "bench/support/percentile.h"

namespace netscore::sim {

BalanceRecorder::BalanceRecorder(double dt, double hot_factor, double hot_utilisation)
    : dt_(dt), hot_factor_(hot_factor), hot_utilisation_(hot_utilisation) {}

void BalanceRecorder::add(std::span<const double> node_rates) {
  const double t = static_cast<double>(instants_++) * dt_;
  if (node_rates.empty()) return;
  const double n = static_cast<double>(node_rates.size());
  double sum = 0, peak = node_rates.front();
  for (const double r : node_rates) {
    sum += r;
    peak = std::max(peak, r);
  }
  const double mean = sum / n;
  if (!(mean > 0)) return;
  double squares = 0;
  unsigned hot = 0;
  for (const double r : node_rates) {
    squares += (r - mean) * (r - mean);
    if (r > hot_factor_ * mean) ++hot;
  }
  peak_to_mean_.push_back(peak / mean);
  times_.push_back(t);
  cv_sum_ += std::sqrt(squares / n) / mean;
  hot_node_seconds_ += dt_ * hot;
}

void BalanceRecorder::add_links(std::span<const double> receive, std::span<const double> transmit,
                                std::span<const double> speed) {
  double peak = 0;
  bool any = false;
  unsigned hot = 0, saturated = 0;
  for (std::size_t n = 0; n < speed.size(); ++n) {
    if (!(speed[n] > 0)) continue;
    for (const double rate : {receive[n], transmit[n]}) {
      const double utilisation = rate / speed[n];
      any = true;
      peak = std::max(peak, utilisation);
      if (utilisation > hot_utilisation_) ++hot;
      if (utilisation > 1) ++saturated;
    }
  }
  if (!any) return;
  peak_utilisation_.push_back(peak);
  hot_link_seconds_ += dt_ * hot;
  saturated_link_seconds_ += dt_ * saturated;
}

void BalanceRecorder::add_pods(std::span<const unsigned> pods, std::span<const double> speed) {
  if (speed.empty()) return;
  const double fastest = *std::max_element(speed.begin(), speed.end());
  for (std::size_t n = 0; n < speed.size() && n < pods.size(); ++n) {
    const int fast = speed[n] < fastest ? 0 : 1;
    pod_node_instants_[fast] += 1;
    pods_summed_[fast] += pods[n];
  }
}

BalanceMetrics BalanceRecorder::result() const {
  BalanceMetrics m;
  m.seconds = static_cast<double>(instants_) * dt_;
  m.hot_node_seconds = hot_node_seconds_;
  m.hot_link_seconds = hot_link_seconds_;
  m.saturated_link_seconds = saturated_link_seconds_;
  if (pod_node_instants_[0] > 0) m.pods_per_slow_node = pods_summed_[0] / pod_node_instants_[0];
  if (pod_node_instants_[1] > 0) m.pods_per_fast_node = pods_summed_[1] / pod_node_instants_[1];
  if (!peak_utilisation_.empty()) {
    double sum = 0;
    for (const double v : peak_utilisation_) sum += v;
    m.mean_peak_utilisation = sum / static_cast<double>(peak_utilisation_.size());
    auto sorted = peak_utilisation_;
    m.p99_peak_utilisation = bench::percentile(sorted, 0.99);
    m.max_utilisation = *std::max_element(peak_utilisation_.begin(), peak_utilisation_.end());
  }
  if (peak_to_mean_.empty()) return m;
  const double counted = static_cast<double>(peak_to_mean_.size());
  double sum = 0;
  for (const double v : peak_to_mean_) sum += v;
  m.peak_to_mean = sum / counted;
  m.cv = cv_sum_ / counted;
  auto sorted = peak_to_mean_;
  m.p99_peak_to_mean = bench::percentile(sorted, 0.99);
  return m;
}

std::vector<std::pair<double, double>> BalanceRecorder::peak_to_mean_series(double smooth_s) const {
  std::vector<std::pair<double, double>> out;
  double sum = 0;
  std::size_t first = 0;  // of the instants within (t - smooth_s, t]
  for (std::size_t i = 0; i < times_.size(); ++i) {
    sum += peak_to_mean_[i];
    while (first < i && times_[first] <= times_[i] - smooth_s) sum -= peak_to_mean_[first++];
    out.emplace_back(times_[i], sum / static_cast<double>(i + 1 - first));
  }
  return out;
}

BurstSpread burst_spread(const Trace& trace, std::span<const int> node_of_pod) {
  struct Burst {
    unsigned pods = 0, most = 0;
    std::map<int, unsigned> on_node;
  };
  std::map<std::uint32_t, Burst> bursts;
  for (std::size_t pod = 0; pod < trace.pods.size(); ++pod) {
    if (trace.pods[pod].burst == kInitialBurst) continue;
    auto& burst = bursts[trace.pods[pod].burst];
    ++burst.pods;
    const int node = pod < node_of_pod.size() ? node_of_pod[pod] : -1;
    if (node >= 0) burst.most = std::max(burst.most, ++burst.on_node[node]);
  }
  BurstSpread spread;
  double total = 0;
  for (const auto& [id, burst] : bursts) {
    if (burst.pods < 2 || burst.most == 0) continue;
    ++spread.bursts;
    total += burst.most;
    spread.max_on_one_node = std::max(spread.max_on_one_node, burst.most);
  }
  if (spread.bursts > 0) spread.mean_max_on_one_node = total / spread.bursts;
  return spread;
}

}  // namespace netscore::sim
