// Prometheus duration parsing: never crashes, and anything accepted is positive and parses back
// to the same value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = netscore::parse_prom_duration(text);
  if (parsed && (parsed->value.count() <= 0 || parsed->text != text)) std::abort();
  return 0;
}
