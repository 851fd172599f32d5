// Environment and flag parsing: input lines are NAME=VALUE variables, "--..." lines are flags.
// Only ConfigError (bad value) and HelpRequested may escape load_config.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  netscore::Environment env;
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    const auto line = text.substr(start, end - start);
    if (line.starts_with("--")) {
      args.emplace_back(line);
    } else if (const auto eq = line.find('='); eq != std::string_view::npos) {
      env.insert_or_assign(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
    start = end + 1;
  }
  for (const auto component : {netscore::Component::collector, netscore::Component::extender}) {
    try {
      const auto config = netscore::load_config(component, args, env);
      if (config.shm.capacity == 0 || config.query.time_range.value.count() <= 0 ||
          config.extender.neutral_score > 10) {
        std::abort();
      }
    } catch (const netscore::ConfigError&) {
    } catch (const netscore::HelpRequested&) {
    }
  }
  return 0;
}
