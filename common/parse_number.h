#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace netscore {

// A number read whole with std::from_chars: no leading space or '+', no trailing text, no sign on
// an unsigned type (strtoul would wrap "-1" round), finite; nullopt otherwise. Pure.
template <class T>
std::optional<T> parse_number(std::string_view text) {
  T out{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(out)) return std::nullopt;
  }
  return out;
}

}  // namespace netscore
