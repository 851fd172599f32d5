#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace netscore {

// A Prometheus-style duration ("500ms", "15s", "5m", "1h30m", "1d"). The text is kept because the
// time range is spliced into PromQL and must stay in a form Prometheus itself accepts.
struct PromDuration {
  std::chrono::milliseconds value{0};
  std::string text;
};

// Accepts exactly Prometheus' model.ParseDuration grammar: units y w d h m s ms, each at most once,
// largest first; "0" alone is rejected because an empty window or interval is never meant.
std::optional<PromDuration> parse_prom_duration(std::string_view text);

// `value` with the text Prometheus would accept for it, in the largest unit that divides it exactly
// (h, m, s, ms).
PromDuration prom_duration(std::chrono::milliseconds value);

}  // namespace netscore
