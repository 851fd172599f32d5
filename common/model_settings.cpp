#include "common/model_settings.h"

#include <chrono>

namespace netscore {

model::ScoringSettings scoring_settings(const Config& config) {
  return {.basis = config.query.basis,
          .direction = config.query.direction,
          .fallback_speed = config.query.fallback_speed};
}

model::CorrectionSettings correction_settings(const Config& config) {
  return {.enabled = config.kube.correction,
          .function = config.query.function,
          .window_ms = load_window(config, 0).window_ms,
          .default_rate = config.kube.pod_receive_rate,
          .learn_workloads = config.kube.learn_workloads,
          .default_transmit_rate = config.kube.pod_transmit_rate};
}

model::LoadWindow load_window(const Config& config, std::int64_t now_ms) {
  return {.now_ms = now_ms,
          .lag_ms = config.refresh_interval.value.count(),
          .window_ms = config.query.time_range.value.count()};
}

std::int64_t placement_horizon_ms(const Config& config) {
  const model::LoadWindow window = load_window(config, 0);
  return window.lag_ms + window.window_ms;
}

model::PrioritizeSettings prioritize_settings(const Config& config) {
  return {
      .normalisation = config.extender.normalisation,
      .neutral = config.extender.neutral_score,
      .spread_window_ns = std::chrono::nanoseconds(config.extender.spread_window.value).count()};
}

}  // namespace netscore
