#include "common/kubernetes_names.h"

#include <cstddef>

namespace netscore {

bool is_dns_subdomain(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  std::size_t part_start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '.') {
      if (i == part_start || name[part_start] == '-' || name[i - 1] == '-') return false;
      part_start = i + 1;
      continue;
    }
    const char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

}  // namespace netscore
