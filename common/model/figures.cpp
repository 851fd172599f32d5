#include "common/model/figures.h"

#include <optional>

#include "common/model/scoring.h"

namespace netscore::model {

NodeFigures measured_figures(const NodeSample& s, std::int64_t eval_time_ms,
                             const ScoringSettings& scoring) {
  NodeFigures f{.raw = s.value,
                .sample_ms = eval_time_ms,
                .rate = s.rate_valid ? s.rate : 0,
                .flags = kEntryHasSeries | (s.rate_valid ? kEntryRateValid : 0U) |
                         (s.transmit_value_valid ? kEntryTransmitValid : 0U) |
                         (s.transmit_rate_valid ? kEntryTransmitRateValid : 0U) |
                         (s.unusable_speeds > 0 ? kEntrySpeedUnusable : 0U),
                .raw_transmit = s.transmit_value_valid ? s.transmit_value : 0,
                .transmit_rate = s.transmit_rate_valid ? s.transmit_rate : 0};
  if (s.speed > 0) {
    f.speed = s.speed;
    f.flags |= kEntrySpeedMeasured;
  } else if (scoring.fallback_speed > 0) {
    f.speed = scoring.fallback_speed;
    f.flags |= kEntrySpeedFallback;
  }
  const auto known = [](bool valid, double value) {
    return valid ? std::optional<double>(value) : std::nullopt;
  };
  const std::optional<double> utilisation = scoring.basis == ScoreBasis::utilisation
                                                ? utilisation_in(f, scoring.direction)
                                                : std::nullopt;
  std::optional<std::int64_t> score;
  if (utilisation) {
    f.scored = *utilisation;
    f.flags |= kEntryUtilisation;
    score = utilisation_score(f.scored);
  } else if (const auto raw = in_direction(scoring.direction, s.value,
                                           known(s.transmit_value_valid, s.transmit_value))) {
    f.scored = *raw;
    score = plugin_score(f.scored);
  }
  f.raw_score = score.value_or(0);
  f.corrected_raw_score = f.raw_score;
  if (score) f.flags |= kEntryValid;
  return f;
}

}  // namespace netscore::model
