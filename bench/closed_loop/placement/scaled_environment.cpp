#include "bench/closed_loop/placement/scaled_environment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>

#include "common/duration.h"

namespace netscore::sim {
namespace {

// A Prometheus duration ("1s", "900ms"), whole seconds when exact as the shipped defaults are.
std::string scaled(const PromDuration& duration, double time_scale) {
  return prom_duration(
             std::chrono::milliseconds(std::max<std::int64_t>(
                 1, std::llround(static_cast<double>(duration.value.count()) / time_scale))))
      .text;
}

}  // namespace

Environment scaled_environment(const Environment& policy_env, double time_scale) {
  const Config shipped = load_config(Component::collector, {}, policy_env);
  Environment env = policy_env;
  env["NETSCORE_REFRESH_INTERVAL"] = scaled(shipped.refresh_interval, time_scale);
  env["NETSCORE_TIME_RANGE"] = scaled(shipped.query.time_range, time_scale);
  env["NETSCORE_REBALANCE_WINDOW"] = scaled(rebalance_window(shipped), time_scale);
  return env;
}

double table_lag_s(const Config& collector, double scrape_s) {
  return scrape_s + std::chrono::duration<double>(collector.refresh_interval.value).count();
}

}  // namespace netscore::sim
