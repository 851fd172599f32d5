#pragma once

#include <string_view>

// Prometheus data-model name rules, the one copy every component validates against. Names that
// pass them can be spliced into PromQL and exposition text without quoting.
namespace netscore {

namespace prometheus_names_detail {

constexpr bool is_name(std::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

}  // namespace prometheus_names_detail

// [a-zA-Z_][a-zA-Z0-9_]*
constexpr bool is_prometheus_label_name(std::string_view name) {
  return prometheus_names_detail::is_name(name, false);
}

// [a-zA-Z_:][a-zA-Z0-9_:]* (the colons are for recording rules)
constexpr bool is_prometheus_metric_name(std::string_view name) {
  return prometheus_names_detail::is_name(name, true);
}

}  // namespace netscore
