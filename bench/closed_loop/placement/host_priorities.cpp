#include "bench/closed_loop/placement/host_priorities.h"

#include <rapidjson/document.h>

namespace netscore::sim {

std::optional<std::vector<std::int64_t>> host_priorities(
    std::string_view body, const std::unordered_map<std::string, std::size_t>& index) {
  rapidjson::Document list;
  list.Parse(body.data(), body.size());
  if (list.HasParseError() || !list.IsArray()) return std::nullopt;
  std::vector<std::int64_t> scores(index.size(), 0);
  for (const auto& host : list.GetArray()) {
    if (!host.IsObject() || !host.HasMember("Host") || !host["Host"].IsString() ||
        !host.HasMember("Score") || !host["Score"].IsInt64())
      continue;
    const auto it = index.find(host["Host"].GetString());
    if (it != index.end()) scores[it->second] = host["Score"].GetInt64();
  }
  return scores;
}

}  // namespace netscore::sim
