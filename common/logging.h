#pragma once

#include <string_view>

#include "common/config.h"

namespace netscore {

// One stderr logger per binary, key=value lines, flushed at warn and above so a crash loses
// nothing important. Call once from main() before any other logging.
void init_logging(std::string_view binary, LogLevel level);

}  // namespace netscore
