#include "extender/scheduler/pod_rate.h"

#include <optional>
#include <string_view>

#include "common/pod_annotations.h"
#include "common/quantity.h"
#include "common/model/scoring.h"

namespace netscore::extender {

double pod_rate_of(std::span<const KeyValue> annotations, Direction direction) noexcept {
  const auto rate = [&](std::string_view key) -> std::optional<double> {
    const auto text = find_value(annotations, key);
    return text ? parse_quantity(*text) : std::nullopt;
  };
  return model::in_direction(direction, rate(kExpectedRateAnnotation),
                             rate(kExpectedTransmitRateAnnotation))
      .value_or(0);
}

}  // namespace netscore::extender
