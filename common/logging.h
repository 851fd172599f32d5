#pragma once

#include <string>
#include <string_view>

#include "common/config.h"

namespace netscore {

// One stderr logger per binary, flushed at warn and above so a crash loses nothing important.
// text: "2026-01-02T03:04:05.678+0000 info netscore-extender message" (key=value messages).
// json: one object per line, {"time":"...","level":"...","logger":"...","msg":"..."}, the message
// escaped as a JSON string (invalid UTF-8 becomes U+FFFD). Call once from main() before any
// other logging.
void init_logging(std::string_view binary, LogLevel level, LogFormat format = LogFormat::text);

// `text` as the inside of a JSON string literal (no quotes): ", \ and characters below U+0020
// escaped, invalid UTF-8 bytes replaced by U+FFFD, so the result is always valid JSON.
void append_json_escaped(std::string_view text, std::string& out);

}  // namespace netscore
