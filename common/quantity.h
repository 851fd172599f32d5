#pragma once

#include <optional>
#include <string_view>

// Rates and speeds as operators write them in annotations and settings: a plain decimal number or
// a Kubernetes quantity ("500k", "10Mi", "1.25G"). Pure: thread-safe.
namespace netscore {

// The value of `text`, or nullopt unless the whole text is one non-negative quantity (no sign, no
// exponent, no "inf" or "nan").
std::optional<double> parse_quantity(std::string_view text);

}  // namespace netscore
