#pragma once

#include <cstdint>
#include <optional>
#include <vector>

// The range functions a scorer asks Prometheus for, evaluated exactly as Prometheus 2.42 does
// (promql/functions.go extrapolatedRate and funcSumOverTime, the range selection of
// promql/engine.go), so that the simulator shows a policy the numbers the real server would
// give it: the staleness of scrapes, extrapolation to the window edges and counter resets
// included.
namespace netscore::sim {

// One counter's samples, t ascending, no duplicate timestamps.
struct Series {
  std::vector<std::int64_t> t_ms;
  std::vector<double> v;
};

// The window is [eval_ms - range_ms, eval_ms], both edges in (Prometheus 3 drops the left one;
// 2.x keeps it). No stale markers: the simulator's scrapes never fail. nullopt: fewer than 2
// samples in the window (Prometheus returns no series).
std::optional<double> rate(const Series& series, std::int64_t eval_ms, std::int64_t range_ms);
std::optional<double> increase(const Series& series, std::int64_t eval_ms, std::int64_t range_ms);
// nullopt: no sample in the window.
std::optional<double> sum_over_time(const Series& series, std::int64_t eval_ms,
                                    std::int64_t range_ms);

// deriv(): the least-squares slope per second of the samples in the window (functions.go
// funcDeriv, linearRegression); nullopt below 2 samples.
std::optional<double> deriv(const Series& series, std::int64_t eval_ms, std::int64_t range_ms);

enum class Function { sum_over_time, rate, increase, deriv };
std::optional<double> evaluate(Function function, const Series& series, std::int64_t eval_ms,
                               std::int64_t range_ms);

// Drops the samples at or before keep_after_ms: a run of hours would otherwise keep every scrape.
void trim(Series& series, std::int64_t keep_after_ms);

}  // namespace netscore::sim
