#pragma once

#include <span>

#include "common/config.h"
#include "extender/scheduler/protocol.h"

namespace netscore::extender {

// The bytes/s a pod's netscore.io/expected-*-rate annotations give in `direction` (busier: the
// larger, or the one given); 0 when they give none.
double pod_rate_of(std::span<const KeyValue> annotations, Direction direction) noexcept;

}  // namespace netscore::extender
