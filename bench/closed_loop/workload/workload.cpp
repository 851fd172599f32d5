#include "bench/closed_loop/workload/workload.h"

#include <cmath>
#include <string>

namespace netscore::sim {

std::string validate(const WorkloadParams& p) {
  auto finite = [](double v) { return std::isfinite(v); };
  if (p.nodes < 1) return "nodes must be at least 1";
  if (!finite(p.duration_s) || p.duration_s <= 0) return "duration_s must be positive";
  if (!finite(p.background_median) || p.background_median <= 0) {
    return "background_median must be positive";
  }
  if (!finite(p.background_sigma) || p.background_sigma < 0) {
    return "background_sigma must not be negative";
  }
  if (!finite(p.deployment_rate_median) || p.deployment_rate_median <= 0) {
    return "deployment_rate_median must be positive";
  }
  if (!finite(p.deployment_rate_sigma) || p.deployment_rate_sigma < 0.5) {
    return "deployment_rate_sigma must be at least 0.5 (deployments of different traffic)";
  }
  if (!finite(p.pod_jitter_sigma) || p.pod_jitter_sigma < 0) {
    return "pod_jitter_sigma must not be negative";
  }
  if (p.replicas_min < 1) return "replicas_min must be at least 1";
  if (p.replicas_max < p.replicas_min || p.replicas_max > 10000) {
    return "replicas_max must be in [replicas_min, 10000]";
  }
  if (!finite(p.replicas_zipf_exponent) || p.replicas_zipf_exponent < 0) {
    return "replicas_zipf_exponent must not be negative";
  }
  if (!finite(p.pods_per_node) || p.pods_per_node <= 0) return "pods_per_node must be positive";
  if (!finite(p.deployment_lifetime_mean_s) || p.deployment_lifetime_mean_s <= 0) {
    return "deployment_lifetime_mean_s must be positive";
  }
  if (!finite(p.pod_lifetime_mean_s) || p.pod_lifetime_mean_s < 0) {
    return "pod_lifetime_mean_s must not be negative";
  }
  if (!finite(p.rolling_update_rate) || p.rolling_update_rate < 0) {
    return "rolling_update_rate must not be negative";
  }
  if (!finite(p.rollout_delay_s) || p.rollout_delay_s < 0) {
    return "rollout_delay_s must not be negative";
  }
  // Scale-ups grow a deployment by a quarter of itself on average: past this the variance of
  // its size is infinite and the pod count never settles.
  if (!finite(p.scale_up_rate) || p.scale_up_rate < 0 ||
      p.scale_up_rate * p.deployment_lifetime_mean_s >= 2) {
    return "scale_up_rate must be in [0, 2 / deployment_lifetime_mean_s)";
  }
  if (!finite(p.counter_days_min) || p.counter_days_min < 0) {
    return "counter_days_min must not be negative";
  }
  if (!finite(p.counter_days_max) || p.counter_days_max < p.counter_days_min) {
    return "counter_days_max must be at least counter_days_min";
  }
  if (!finite(p.warmup_s) || p.warmup_s < 0) return "warmup_s must not be negative";
  if (!finite(p.link_speed) || p.link_speed < 0) return "link_speed must not be negative";
  if (!finite(p.slow_fraction) || p.slow_fraction < 0 || p.slow_fraction > 1) {
    return "slow_fraction must be in [0, 1]";
  }
  if (!finite(p.slow_speed_factor) || p.slow_speed_factor <= 0 || p.slow_speed_factor > 1) {
    return "slow_speed_factor must be in (0, 1]";
  }
  if (!finite(p.transmit_heavy_fraction) || p.transmit_heavy_fraction < 0 ||
      p.transmit_heavy_fraction > 1) {
    return "transmit_heavy_fraction must be in [0, 1]";
  }
  if (!finite(p.minor_direction_fraction) || p.minor_direction_fraction < 0) {
    return "minor_direction_fraction must not be negative";
  }
  if (!finite(p.bare_fraction) || p.bare_fraction < 0 || p.bare_fraction > 1) {
    return "bare_fraction must be in [0, 1]";
  }
  if (!finite(p.statefulset_fraction) || p.statefulset_fraction < 0 || p.statefulset_fraction > 1) {
    return "statefulset_fraction must be in [0, 1]";
  }
  if (!finite(p.job_fraction) || p.job_fraction < 0 ||
      p.statefulset_fraction + p.job_fraction > 1) {
    return "job_fraction must be in [0, 1 - statefulset_fraction]";
  }
  if (!finite(p.create_spread_s) || p.create_spread_s < 0) {
    return "create_spread_s must not be negative";
  }
  if (p.projects > 100) return "projects must be at most 100";
  if (!finite(p.ceiling_fraction) || p.ceiling_fraction < 0 || p.ceiling_fraction > 1) {
    return "ceiling_fraction must be in [0, 1]";
  }
  // At least twice the level: a shaped pod cannot exceed its ceiling, and the default jitter
  // around the level (pod_jitter_sigma) takes 3 pods in 10,000 past twice it.
  if (!finite(p.ceiling_headroom_min) || !finite(p.ceiling_headroom_max) ||
      p.ceiling_headroom_min < 2 || p.ceiling_headroom_max < p.ceiling_headroom_min) {
    return "ceiling_headroom_min must be at least 2 and ceiling_headroom_max at least it";
  }
  if (!finite(p.drift_grow_fraction) || p.drift_grow_fraction < 0 || p.drift_grow_fraction > 1) {
    return "drift_grow_fraction must be in [0, 1]";
  }
  if (!finite(p.drift_shrink_fraction) || p.drift_shrink_fraction < 0 ||
      p.drift_grow_fraction + p.drift_shrink_fraction > 1) {
    return "drift_shrink_fraction must be in [0, 1 - drift_grow_fraction]";
  }
  if (!finite(p.drift_grow_factor) || p.drift_grow_factor <= 0) {
    return "drift_grow_factor must be positive";
  }
  if (!finite(p.drift_shrink_factor) || p.drift_shrink_factor <= 0) {
    return "drift_shrink_factor must be positive";
  }
  if (!finite(p.drift_from) || !finite(p.drift_to) || p.drift_from < 0 ||
      p.drift_to < p.drift_from || p.drift_to > 1) {
    return "drift_from and drift_to must satisfy 0 <= drift_from <= drift_to <= 1";
  }
  return {};
}

}  // namespace netscore::sim
