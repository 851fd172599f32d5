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
          .window_ms = config.query.time_range.value.count(),
          .default_rate = config.kube.pod_receive_rate,
          .learn_workloads = config.kube.learn_workloads,
          .default_transmit_rate = config.kube.pod_transmit_rate};
}

model::PrioritizeSettings prioritize_settings(const Config& config) {
  return {
      .normalisation = config.extender.normalisation,
      .neutral = config.extender.neutral_score,
      .spread_window_ns = std::chrono::nanoseconds(config.extender.spread_window.value).count()};
}

}  // namespace netscore
