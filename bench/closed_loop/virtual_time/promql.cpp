#include "bench/closed_loop/virtual_time/promql.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace netscore::sim {
namespace {

struct Window {
  std::span<const std::int64_t> t;
  std::span<const double> v;
};

// engine.go matrixIterSlice: mint = eval - range, maxt = eval, and a sample is in when
// mint <= t <= maxt.
Window select(const Series& series, std::int64_t eval_ms, std::int64_t range_ms) {
  const auto first = std::lower_bound(series.t_ms.begin(), series.t_ms.end(), eval_ms - range_ms) -
                     series.t_ms.begin();
  const auto last =
      std::upper_bound(series.t_ms.begin(), series.t_ms.end(), eval_ms) - series.t_ms.begin();
  if (last <= first) return {};
  const auto count = static_cast<std::size_t>(last - first);
  return {std::span(series.t_ms).subspan(static_cast<std::size_t>(first), count),
          std::span(series.v).subspan(static_cast<std::size_t>(first), count)};
}

// Go's time.Duration.Seconds(), whole seconds and the remainder converted apart.
double go_seconds(std::int64_t ms) {
  return static_cast<double>(ms / 1000) + static_cast<double>(ms % 1000 * 1'000'000) / 1e9;
}

// functions.go extrapolatedRate with isCounter, operation for operation in the same order, so
// that the result is the same double.
std::optional<double> extrapolated(const Series& series, std::int64_t eval_ms,
                                   std::int64_t range_ms, bool is_rate) {
  const auto w = select(series, eval_ms, range_ms);
  if (w.t.size() < 2) return std::nullopt;
  const std::int64_t range_start = eval_ms - range_ms;
  const std::int64_t range_end = eval_ms;
  double result = w.v.back() - w.v.front();
  double prev = w.v.front();
  for (std::size_t i = 1; i < w.v.size(); ++i) {
    if (w.v[i] < prev) result += prev;  // a counter reset: the counter restarted from 0
    prev = w.v[i];
  }
  double to_start = static_cast<double>(w.t.front() - range_start) / 1000;
  const double to_end = static_cast<double>(range_end - w.t.back()) / 1000;
  const double sampled = static_cast<double>(w.t.back() - w.t.front()) / 1000;
  const double average = sampled / static_cast<double>(w.t.size() - 1);
  if (result > 0 && w.v.front() >= 0) {
    // A counter is never negative: do not extrapolate back past its zero point.
    const double to_zero = sampled * (w.v.front() / result);
    if (to_zero < to_start) to_start = to_zero;
  }
  const double threshold = average * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : average / 2;
  interval += to_end < threshold ? to_end : average / 2;
  double factor = interval / sampled;
  if (is_rate) factor /= go_seconds(range_ms);
  return result * factor;
}

}  // namespace

std::optional<double> rate(const Series& series, std::int64_t eval_ms, std::int64_t range_ms) {
  return extrapolated(series, eval_ms, range_ms, true);
}

std::optional<double> increase(const Series& series, std::int64_t eval_ms, std::int64_t range_ms) {
  return extrapolated(series, eval_ms, range_ms, false);
}

// functions.go funcSumOverTime: Kahan-Neumaier summation (kahanSumInc).
std::optional<double> sum_over_time(const Series& series, std::int64_t eval_ms,
                                    std::int64_t range_ms) {
  const auto w = select(series, eval_ms, range_ms);
  if (w.v.empty()) return std::nullopt;
  double sum = 0, c = 0;
  for (const double v : w.v) {
    const double t = sum + v;
    if (std::abs(sum) >= std::abs(v)) {
      c += (sum - t) + v;
    } else {
      c += (v - t) + sum;
    }
    sum = t;
  }
  if (std::isinf(sum)) return sum;
  return sum + c;
}

std::optional<double> deriv(const Series& series, std::int64_t eval_ms, std::int64_t range_ms) {
  const Window w = select(series, eval_ms, range_ms);
  if (w.t.size() < 2) return std::nullopt;
  // functions.go linearRegression, x in seconds from the first sample's time.
  double sum_x = 0, sum_y = 0, sum_xy = 0, sum_x2 = 0;
  bool const_y = true;
  for (std::size_t i = 0; i < w.t.size(); ++i) {
    if (w.v[i] != w.v[0]) const_y = false;
    const double x = static_cast<double>(w.t[i] - w.t[0]) / 1e3;
    sum_x += x;
    sum_y += w.v[i];
    sum_xy += x * w.v[i];
    sum_x2 += x * x;
  }
  if (const_y) return 0.0;
  const auto n = static_cast<double>(w.t.size());
  return (sum_xy - sum_x * sum_y / n) / (sum_x2 - sum_x * sum_x / n);
}

std::optional<double> evaluate(Function function, const Series& series, std::int64_t eval_ms,
                               std::int64_t range_ms) {
  switch (function) {
    case Function::deriv:
      return deriv(series, eval_ms, range_ms);
    case Function::sum_over_time:
      return sum_over_time(series, eval_ms, range_ms);
    case Function::rate:
      return rate(series, eval_ms, range_ms);
    case Function::increase:
      return increase(series, eval_ms, range_ms);
  }
  return std::nullopt;
}

void trim(Series& series, std::int64_t keep_after_ms) {
  const auto keep =
      std::upper_bound(series.t_ms.begin(), series.t_ms.end(), keep_after_ms) - series.t_ms.begin();
  series.t_ms.erase(series.t_ms.begin(), series.t_ms.begin() + keep);
  series.v.erase(series.v.begin(), series.v.begin() + keep);
}

}  // namespace netscore::sim
