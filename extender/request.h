#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

// What a request asks, below http/, views/ and scheduler/ so that each may read it: its verb (the
// route table dispatches on it, the request metrics label by it, the decision log records it) and
// its target's query. Pure: thread-safe.
namespace netscore::extender {

enum class Verb : std::uint8_t {
  filter,
  prioritize,
  table,
  healthz,
  readyz,
  metrics,
  explain,
  other
};
inline constexpr std::size_t kVerbs = 8;
std::string_view to_string(Verb v);

// A request target cut at its '?'.
struct Target {
  std::string_view path;
  std::string_view query;
};
Target split_target(std::string_view target);

// The '&'-separated parameters of a query string, empty ones included, in order.
std::vector<std::string_view> query_params(std::string_view query);

}  // namespace netscore::extender
