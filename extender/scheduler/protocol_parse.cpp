#include "extender/scheduler/protocol.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include <rapidjson/stream.h>

#include "extender/scheduler/protocol_args_handler.h"

// The request half of the protocol: parsing ExtenderArgs; protocol_write.cpp writes the responses.
namespace netscore::extender {

std::optional<std::string_view> find_value(std::span<const KeyValue> pairs, std::string_view key) {
  for (const auto& [k, v] : pairs) {
    if (k == key) return v;
  }
  return std::nullopt;
}

namespace {

// Whether every byte is below 0x80, eight bytes at a time: such a body is valid UTF-8 as it is.
bool all_ascii(std::string_view text) {
  constexpr std::uint64_t kHigh = 0x8080808080808080U;
  std::uint64_t seen = 0;
  std::size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + at, 8);
    seen |= word;
  }
  for (; at < text.size(); ++at) seen |= static_cast<unsigned char>(text[at]);
  return (seen & kHigh) == 0;
}

}  // namespace

std::optional<std::string> parse_extender_args(std::string& body, ExtenderArgs& out) {
  out = ExtenderArgs{};
  const std::size_t size = body.size();
  // A body of ASCII bytes alone (what kube-scheduler sends: node names are DNS names) is valid
  // UTF-8 without checking each string again, and unchecked strings are scanned 16 bytes at a
  // time: that was half of a /prioritize of 500 names. Any other body is validated as it is read.
  const bool ascii = all_ascii(body);
  // RapidJSON's UTF-8 validation takes all continuation bytes a lead byte announces before it
  // checks them, so a body ending in a truncated sequence would be read up to two bytes past its
  // terminator (found by http_request_fuzz). Padding only such bodies keeps valid ones uncopied.
  const bool may_end_mid_sequence =
      !ascii &&
      std::any_of(body.end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(size, 3)),
                  body.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (may_end_mid_sequence) body.append(3, '\0');
  rapidjson::InsituStringStream stream(body.data());
  if (auto error = protocol_detail::read_extender_args(stream, !ascii, out)) return error;
  // The in-situ stream ends at the first NUL byte: a body with one inside is not one JSON text.
  if (stream.Tell() != size)
    return "malformed JSON: NUL byte at byte " + std::to_string(stream.Tell());
  body.resize(size);
  return std::nullopt;
}

}  // namespace netscore::extender
