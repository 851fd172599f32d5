#include "bench/closed_loop/workload/workload.h"

#include <cmath>
#include <cstdint>
#include <ctime>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

namespace netscore::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A parameter's range: finite, in [lo, hi], or (lo, hi] when `above`.
struct Range {
  std::string_view name;
  double WorkloadParams::*member;
  double lo;
  bool above;
  double hi = kInf;
};

constexpr Range kRanges[] = {
    {"duration_s", &WorkloadParams::duration_s, 0, true},
    // At least 0.5: deployments of different traffic.
    {"deployment_rate_sigma", &WorkloadParams::deployment_rate_sigma, 0.5, false},
    {"background_median", &WorkloadParams::background_median, 0, true},
    {"background_sigma", &WorkloadParams::background_sigma, 0, false},
    {"deployment_rate_median", &WorkloadParams::deployment_rate_median, 0, true},
    {"pod_jitter_sigma", &WorkloadParams::pod_jitter_sigma, 0, false},
    {"replicas_zipf_exponent", &WorkloadParams::replicas_zipf_exponent, 0, false},
    {"pods_per_node", &WorkloadParams::pods_per_node, 0, true},
    {"deployment_lifetime_mean_s", &WorkloadParams::deployment_lifetime_mean_s, 0, true},
    {"pod_lifetime_mean_s", &WorkloadParams::pod_lifetime_mean_s, 0, false},
    {"rolling_update_rate", &WorkloadParams::rolling_update_rate, 0, false},
    {"rollout_delay_s", &WorkloadParams::rollout_delay_s, 0, false},
    {"counter_days_min", &WorkloadParams::counter_days_min, 0, false},
    {"warmup_s", &WorkloadParams::warmup_s, 0, false},
    {"link_speed", &WorkloadParams::link_speed, 0, false},
    {"slow_fraction", &WorkloadParams::slow_fraction, 0, false, 1},
    {"slow_speed_factor", &WorkloadParams::slow_speed_factor, 0, true, 1},
    {"transmit_heavy_fraction", &WorkloadParams::transmit_heavy_fraction, 0, false, 1},
    {"minor_direction_fraction", &WorkloadParams::minor_direction_fraction, 0, false},
    {"bare_fraction", &WorkloadParams::bare_fraction, 0, false, 1},
    {"statefulset_fraction", &WorkloadParams::statefulset_fraction, 0, false, 1},
    {"create_spread_s", &WorkloadParams::create_spread_s, 0, false},
    {"ceiling_fraction", &WorkloadParams::ceiling_fraction, 0, false, 1},
    {"declared_fraction", &WorkloadParams::declared_fraction, 0, false, 1},
    {"drift_grow_fraction", &WorkloadParams::drift_grow_fraction, 0, false, 1},
    {"drift_grow_factor", &WorkloadParams::drift_grow_factor, 0, true},
    {"drift_shrink_factor", &WorkloadParams::drift_shrink_factor, 0, true},
    {"drift_ramp", &WorkloadParams::drift_ramp, 0, false, 1},
};

}  // namespace

std::string validate(const WorkloadParams& p) {
  if (p.nodes < 1) return "nodes must be at least 1";
  for (const Range& range : kRanges) {
    const double v = p.*range.member;
    if (std::isfinite(v) && v >= range.lo && (!range.above || v > range.lo) && v <= range.hi)
      continue;
    std::ostringstream out;
    out << range.name << " must be in " << (range.above ? '(' : '[') << range.lo << ", " << range.hi
        << (range.hi < kInf ? "]" : ")");
    return out.str();
  }
  auto finite = [](double v) { return std::isfinite(v); };
  if (p.replicas_min < 1) return "replicas_min must be at least 1";
  if (p.replicas_max < p.replicas_min || p.replicas_max > 10000) {
    return "replicas_max must be in [replicas_min, 10000]";
  }
  // Scale-ups grow a deployment by a quarter of itself on average: past this the variance of
  // its size is infinite and the pod count never settles.
  if (!finite(p.scale_up_rate) || p.scale_up_rate < 0 ||
      p.scale_up_rate * p.deployment_lifetime_mean_s >= 2) {
    return "scale_up_rate must be in [0, 2 / deployment_lifetime_mean_s)";
  }
  if (!finite(p.counter_days_max) || p.counter_days_max < p.counter_days_min) {
    return "counter_days_max must be at least counter_days_min";
  }
  if (!finite(p.job_fraction) || p.job_fraction < 0 ||
      p.statefulset_fraction + p.job_fraction > 1) {
    return "job_fraction must be in [0, 1 - statefulset_fraction]";
  }
  if (p.projects > 100) return "projects must be at most 100";
  // At least twice the level: a shaped pod cannot exceed its ceiling, and the default jitter
  // around the level (pod_jitter_sigma) takes 3 pods in 10,000 past twice it.
  if (!finite(p.ceiling_headroom_min) || !finite(p.ceiling_headroom_max) ||
      p.ceiling_headroom_min < 2 || p.ceiling_headroom_max < p.ceiling_headroom_min) {
    return "ceiling_headroom_min must be at least 2 and ceiling_headroom_max at least it";
  }
  if (!finite(p.drift_shrink_fraction) || p.drift_shrink_fraction < 0 ||
      p.drift_grow_fraction + p.drift_shrink_fraction > 1) {
    return "drift_shrink_fraction must be in [0, 1 - drift_grow_fraction]";
  }
  if (!finite(p.drift_from) || !finite(p.drift_to) || p.drift_from < 0 ||
      p.drift_to < p.drift_from || p.drift_to > 1) {
    return "drift_from and drift_to must satisfy 0 <= drift_from <= drift_to <= 1";
  }
  return {};
}

// A trace starts at most hours after its warm-up, far after 1970: the milliseconds are positive.
std::int64_t creation_second(const PodSpec& pod) {
  return (kTraceEpochMs + std::llround(pod.created_s * 1000)) / 1000;
}

std::string creation_timestamp(const PodSpec& pod) {
  const auto seconds = static_cast<std::time_t>(creation_second(pod));
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[sizeof "2023-11-14T22:13:20Z"];
  return std::string(text, std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc));
}

}  // namespace netscore::sim
