#include "common/model/scoring.h"

#include <algorithm>
#include <cmath>

namespace netscore::model {
namespace {

// raw * 100 needs 71 bits for the largest raw value; GCC and Clang provide 128-bit integers.
__extension__ using Int128 = __int128;

}  // namespace

std::optional<std::int64_t> plugin_score(double raw) {
  // 2^63 is exactly representable; anything at or above it does not fit int64.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!std::isfinite(raw) || raw < 0.0 || raw >= kTwoTo63) return std::nullopt;
  return static_cast<std::int64_t>(raw);
}

std::optional<std::int64_t> utilisation_score(double utilisation) {
  return plugin_score(utilisation * kUtilisationScale);
}

std::optional<double> in_direction(Direction direction, std::optional<double> receive,
                                   std::optional<double> transmit) {
  switch (direction) {
    case Direction::receive:
      return receive;
    case Direction::transmit:
      return transmit;
    case Direction::max:
      if (receive && transmit) return std::max(*receive, *transmit);
      return receive ? receive : transmit;
  }
  return receive;
}

std::int64_t normalise_score(std::int64_t raw, std::int64_t max) {
  if (max <= 0) return kMaxNodeScore;
  const auto scaled = static_cast<Int128>(raw) * kMaxNodeScore / max;
  return kMaxNodeScore - static_cast<std::int64_t>(scaled);
}

std::int64_t normalise_score_range(std::int64_t raw, std::int64_t min, std::int64_t max) {
  if (max <= min) return kMaxNodeScore;
  const auto above = static_cast<Int128>(std::clamp(raw, min, max)) - min;
  return kMaxNodeScore -
         static_cast<std::int64_t>(above * kMaxNodeScore / (static_cast<Int128>(max) - min));
}

void normalise_scores(std::span<const std::int64_t> raw, std::span<std::int64_t> out) {
  std::int64_t max = 0;
  for (const auto value : raw) max = std::max(max, value);
  for (std::size_t i = 0; i < raw.size() && i < out.size(); ++i)
    out[i] = normalise_score(raw[i], max);
}

std::int64_t to_extender_score(std::int64_t node_score) {
  const auto clamped = std::clamp<std::int64_t>(node_score, 0, kMaxNodeScore);
  return (clamped * kMaxExtenderScore + kMaxNodeScore / 2) / kMaxNodeScore;
}

}  // namespace netscore::model
