#include "extender/scheduler/protocol.h"

#include <algorithm>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "extender/scheduler/protocol_args_handler.h"

// The request half of the protocol: parsing ExtenderArgs; protocol_write.cpp writes the responses.
namespace netscore::extender {

std::optional<std::string_view> find_value(std::span<const KeyValue> pairs, std::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::optional<std::string> parse_extender_args(std::string& body, ExtenderArgs& out) {
  out = ExtenderArgs{};
  const std::size_t size = body.size();
  // RapidJSON's UTF-8 validation takes all continuation bytes a lead byte announces before it
  // checks them, so a body ending in a truncated sequence would be read up to two bytes past its
  // terminator (found by http_request_fuzz). Padding only such bodies keeps valid ones uncopied.
  const bool may_end_mid_sequence =
      std::any_of(body.end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(size, 3)),
                  body.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (may_end_mid_sequence) body.append(3, '\0');
  rapidjson::InsituStringStream stream(body.data());
  protocol_detail::ArgsHandler handler(out, stream);
  rapidjson::Reader reader;
  // Iterative: a hostile 1e6-deep nesting must not recurse on the stack.
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseIterativeFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, handler);
  if (!result) {
    if (!handler.error().empty()) return handler.error();
    return std::string("malformed JSON at byte ") + std::to_string(result.Offset()) + ": " +
           rapidjson::GetParseError_En(result.Code());
  }
  if (!handler.finish()) return handler.error();
  // The in-situ stream ends at the first NUL byte: a body with one inside is not one JSON text.
  if (stream.Tell() != size)
    return "malformed JSON: NUL byte at byte " + std::to_string(stream.Tell());
  body.resize(size);
  return std::nullopt;
}

}  // namespace netscore::extender
