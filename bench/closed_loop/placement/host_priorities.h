#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

// What the virtual loop reads of the extender's prioritize reply.
namespace netscore::sim {

// A HostPriorityList's scores of `index`'s nodes, in its order (0 for a node it lacks); nullopt
// when the body is not one.
std::optional<std::vector<std::int64_t>> host_priorities(
    std::string_view body, const std::unordered_map<std::string, std::size_t>& index);

}  // namespace netscore::sim
