#include "extender/request.h"

#include <array>

namespace netscore::extender {

std::string_view to_string(Verb v) {
  static constexpr std::array<std::string_view, kVerbs> kNames = {
      "filter", "prioritize", "table", "healthz", "readyz", "metrics", "explain", "other"};
  return kNames[static_cast<std::size_t>(v)];
}

Target split_target(std::string_view target) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {target, {}};
  return {target.substr(0, q), target.substr(q + 1)};
}

std::vector<std::string_view> query_params(std::string_view query) {
  std::vector<std::string_view> params;
  for (std::size_t at = 0; at <= query.size();) {
    const auto amp = query.find('&', at);
    if (amp == std::string_view::npos) {
      params.push_back(query.substr(at));
      break;
    }
    params.push_back(query.substr(at, amp - at));
    at = amp + 1;
  }
  return params;
}

}  // namespace netscore::extender
