#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "common/model/domain.h"

// Score semantics of the original NetworkTraffic score plugin (scheduler-plugins tutorial):
//   Score:          int64(sum_over_time(...))            -- Go truncates the float toward zero
//   NormalizeScore: MaxNodeScore - score*MaxNodeScore/max -- Go int64 arithmetic
// Pure functions: no I/O, no allocation.
namespace netscore::model {

inline constexpr std::int64_t kMaxNodeScore = 100;     // framework.MaxNodeScore
inline constexpr std::int64_t kMaxExtenderScore = 10;  // extender/v1 MaxExtenderPriority

// The plugin's Score: the raw value truncated toward zero, as Go's int64(float64) does.
// NaN, ±Inf, negative values and values beyond int64 are rejected (nullopt): Go would silently
// produce garbage or a negative score, and such a node must never steer a pod.
std::optional<std::int64_t> plugin_score(double raw);

// Utilisation is scored in parts per million, so the plugin's integer arithmetic applies to it as
// it does to bytes and a 0.0001% difference still ranks.
inline constexpr double kUtilisationScale = 1e6;

// The score integer of a link utilisation (rate / speed): plugin_score(u x kUtilisationScale).
std::optional<std::int64_t> utilisation_score(double utilisation);

// The value in `direction` of those a node has; busier: the larger of the two, or the one known.
std::optional<double> in_direction(Direction direction, std::optional<double> receive,
                                   std::optional<double> transmit);

// The plugin's NormalizeScore over `raw` (all valid, i.e. >= 0), written to `out` (same size).
// max == 0 (every node idle) gives every node kMaxNodeScore where Go would divide by zero.
// The product is computed in 128 bits: equal to Go whenever Go does not overflow int64.
// model/normalise applies it per basis.
void normalise_scores(std::span<const std::int64_t> raw, std::span<std::int64_t> out);

// One node against a known maximum (the same formula, for callers that already know the max).
std::int64_t normalise_score(std::int64_t raw, std::int64_t max);

// One node placed on the whole 0..100 between the least (100) and the most (0) loaded of the nodes
// compared, so background traffic every node carries does not crowd the scores into the top of
// the range. min == max gives every node kMaxNodeScore.
std::int64_t normalise_score_range(std::int64_t raw, std::int64_t min, std::int64_t max);

// 0..100 → 0..10 for the extender protocol, rounding half up: 0-4 → 0, 5-14 → 1, ..., 95-100 → 10.
// Rounding (not truncation) keeps the idle node (100) and a node at 96 both at 10.
std::int64_t to_extender_score(std::int64_t node_score);

}  // namespace netscore::model
