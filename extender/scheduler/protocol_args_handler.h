#pragma once

#include <optional>
#include <string>

#include <rapidjson/stream.h>

#include "extender/scheduler/protocol.h"

// The one pass over an ExtenderArgs body behind parse_extender_args (protocol_parse.cpp).
namespace netscore::extender::protocol_detail {

// Reads the body under `stream` in situ into `out`, keeping only what the extender reads, with Go
// encoding/json's matching rules; `validate_encoding` checks UTF-8 as it reads (a body with bytes
// above 0x7F). The error, or nullopt with `stream` at the end of the JSON text.
std::optional<std::string> read_extender_args(rapidjson::InsituStringStream& stream,
                                              bool validate_encoding, ExtenderArgs& out);

}  // namespace netscore::extender::protocol_detail
