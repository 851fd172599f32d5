#pragma once

#include <string_view>

// Annotations a workload sets on its pods to say how much traffic one pod receives and transmits
// (bytes/s: a plain number or a quantity such as "10Mi", common/quantity.h). The collector prices
// placed pods with them; the extender prices the pod it is asked to place.
namespace netscore {

inline constexpr std::string_view kExpectedRateAnnotation = "netscore.io/expected-receive-rate";
inline constexpr std::string_view kExpectedTransmitRateAnnotation =
    "netscore.io/expected-transmit-rate";

}  // namespace netscore
