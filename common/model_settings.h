#pragma once

#include "common/config.h"
#include "common/model/inputs.h"
#include "common/model/prioritize.h"

// The model's settings as the configuration gives them, each built in one place: the collector,
// the extender and the simulators call these rather than picking fields of Config themselves.
namespace netscore {

// NETSCORE_SCORE_BASIS, NETSCORE_DIRECTION, NETSCORE_FALLBACK_LINK_SPEED.
model::ScoringSettings scoring_settings(const Config& config);

// Placement correction: NETSCORE_CORRECTION, the query's function and time range (the window),
// the default pod rates and workload learning.
model::CorrectionSettings correction_settings(const Config& config);

// The window a placement's traffic enters at `now_ms`: its lag is one refresh interval (a pod
// placed just after a refresh reaches the table at the next one), its length NETSCORE_TIME_RANGE.
model::LoadWindow load_window(const Config& config, std::int64_t now_ms);

// How long the collector keeps a placement pending: a placement's lag and window.
std::int64_t placement_horizon_ms(const Config& config);

// NETSCORE_NORMALISATION, NETSCORE_SPREAD_WINDOW and the fixed neutral score.
model::PrioritizeSettings prioritize_settings(const Config& config);

}  // namespace netscore
