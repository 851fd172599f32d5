#include "common/duration.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <string>

namespace netscore {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t ms;
};

// Largest first, as Prometheus requires; "ms" is tried before "m" at the same position.
constexpr std::array<Unit, 7> kUnits{{{"y", 365LL * 24 * 3600 * 1000},
                                      {"w", 7LL * 24 * 3600 * 1000},
                                      {"d", 24LL * 3600 * 1000},
                                      {"h", 3600LL * 1000},
                                      {"m", 60LL * 1000},
                                      {"s", 1000},
                                      {"ms", 1}}};

}  // namespace

std::optional<PromDuration> parse_prom_duration(std::string_view text) {
  std::string_view rest = text;
  std::size_t next_unit = 0;
  std::int64_t total = 0;
  while (!rest.empty()) {
    std::uint64_t number = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
    if (ec != std::errc{} || end == rest.data()) return std::nullopt;
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    std::size_t matched = kUnits.size();
    for (std::size_t u = next_unit; u < kUnits.size(); ++u) {
      const auto suffix = kUnits[u].suffix;
      if (rest.starts_with(suffix)) {
        // "m" must not swallow the "m" of "ms".
        if (suffix == "m" && rest.starts_with("ms")) continue;
        matched = u;
        break;
      }
    }
    if (matched == kUnits.size()) return std::nullopt;
    const std::int64_t unit_ms = kUnits[matched].ms;
    if (number > static_cast<std::uint64_t>(INT64_MAX / unit_ms) ||
        total > INT64_MAX - static_cast<std::int64_t>(number) * unit_ms) {
      return std::nullopt;
    }
    total += static_cast<std::int64_t>(number) * unit_ms;
    rest.remove_prefix(kUnits[matched].suffix.size());
    next_unit = matched + 1;
  }
  if (total <= 0) return std::nullopt;
  return PromDuration{std::chrono::milliseconds{total}, std::string{text}};
}

PromDuration prom_duration(std::chrono::milliseconds value) {
  struct Unit {
    std::int64_t ms;
    const char* suffix;
  };
  static constexpr std::array<Unit, 3> kLargestFirst{
      {{3'600'000, "h"}, {60'000, "m"}, {1'000, "s"}}};
  const std::int64_t ms = value.count();
  for (const Unit& unit : kLargestFirst) {
    if (ms > 0 && ms % unit.ms == 0) return {value, std::to_string(ms / unit.ms) + unit.suffix};
  }
  return {value, std::to_string(ms) + "ms"};
}

}  // namespace netscore
