#pragma once

#include "common/model/domain.h"

// Which parts of a node's traffic the refresh's query asks, decided once: the collector's query
// builder asks them and the closed-loop simulator answers them.
namespace netscore::model {

// The configured function over the transmit counter: the raw value in a transmit or max
// direction. Asked on the utilisation basis too, where a node without a link speed (neither its
// own nor the fallback) is scored on the raw basis. With the rate function the transmit rate,
// asked anyway, stands for it.
constexpr bool asks_transmit_value(Direction direction, QueryFunction function) noexcept {
  return direction != Direction::receive && function != QueryFunction::rate;
}

}  // namespace netscore::model
