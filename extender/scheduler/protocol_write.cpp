#include "extender/scheduler/protocol.h"

// The response half of the protocol: the JSON bodies the extender sends back to the scheduler.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace netscore::extender {
namespace {

using ReplyWriter = rapidjson::Writer<rapidjson::StringBuffer>;

bool byte_needs_escape(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u >= 0x80 || c == '"' || c == '\\';
}

// Whole words first, eight bytes at a time (the bit tricks of "Determine if a word has a byte
// less than n", Bit Twiddling Hacks), each read in one load; the rest byte by byte.
bool needs_escape(std::string_view s) {
  constexpr std::uint64_t kOnes = 0x0101010101010101U;
  constexpr std::uint64_t kHigh = 0x8080808080808080U;
  const auto has_zero = [](std::uint64_t w) { return ((w - kOnes) & ~w & kHigh) != 0; };
  std::size_t at = 0;
  for (; at + 8 <= s.size(); at += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + at, 8);
    // Bytes from 0x80 are tested first: the test for bytes below 0x20 holds only without them.
    if ((w & kHigh) != 0 || has_zero(w ^ (kOnes * '"')) || has_zero(w ^ (kOnes * '\\')) ||
        ((w - kOnes * 0x20) & ~w & kHigh) != 0) {
      return true;
    }
  }
  return std::any_of(s.begin() + static_cast<std::ptrdiff_t>(at), s.end(), byte_needs_escape);
}

void write_string(ReplyWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace

void write_host_priority_list(std::span<const std::string_view> names,
                              std::span<const std::int64_t> scores, std::string& out) {
  // The hot path of every scheduling cycle: names that need no JSON escaping (all valid node
  // names) are copied as they are; anything else goes through RapidJSON's escaping.
  const std::size_t n = std::min(names.size(), scores.size());
  std::size_t bytes = 2;
  for (std::size_t i = 0; i < n; ++i) bytes += names[i].size() + 48;
  // Sized once, written through a pointer: per-append capacity checks cost more than the lookup.
  out.resize(bytes);
  char* at = out.data();
  const auto put = [&at](std::string_view text) {
    std::memcpy(at, text.data(), text.size());
    at += text.size();
  };
  put("[");
  for (std::size_t i = 0; i < n; ++i) {
    put(i == 0 ? std::string_view("{\"Host\":") : std::string_view(",{\"Host\":"));
    if (needs_escape(names[i])) {
      rapidjson::StringBuffer buffer;
      ReplyWriter w(buffer);
      write_string(w, names[i]);
      const std::size_t used = static_cast<std::size_t>(at - out.data());
      out.resize(out.size() + buffer.GetSize());  // escaping can grow a name up to 6x
      at = out.data() + used;
      put({buffer.GetString(), buffer.GetSize()});
    } else {
      *at++ = '"';
      put(names[i]);
      *at++ = '"';
    }
    put(",\"Score\":");
    at = std::to_chars(at, at + 20, scores[i]).ptr;
    *at++ = '}';
  }
  put("]");
  out.resize(static_cast<std::size_t>(at - out.data()));
}

void write_filter_result(const ExtenderArgs& args, std::string_view original_body,
                         std::span<const std::size_t> passed, std::span<const FailedNode> failed,
                         std::string& out) {
  rapidjson::StringBuffer buffer;
  ReplyWriter w(buffer);
  w.StartObject();
  w.Key("Nodes");
  if (args.node_cache_capable) {
    w.Null();
  } else {
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (const std::size_t i : passed) {
      const ByteSpan span = args.item_spans[i];
      w.RawValue(original_body.data() + span.begin, span.end - span.begin, rapidjson::kObjectType);
    }
    w.EndArray();
    w.EndObject();
  }
  w.Key("NodeNames");
  if (args.node_cache_capable) {
    w.StartArray();
    for (const std::size_t i : passed) write_string(w, args.names[i]);
    w.EndArray();
  } else {
    w.Null();
  }
  w.Key("FailedNodes");
  w.StartObject();
  w.EndObject();
  w.Key("FailedAndUnresolvableNodes");
  w.StartObject();
  for (const auto& f : failed) {
    write_string(w, args.names[f.index]);
    write_string(w, f.reason);
  }
  w.EndObject();
  w.Key("Error");
  w.String("");
  w.EndObject();
  out.assign(buffer.GetString(), buffer.GetSize());
}

std::string error_body(std::string_view message) {
  rapidjson::StringBuffer buffer;
  ReplyWriter w(buffer);
  w.StartObject();
  w.Key("error");
  write_string(w, message);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace netscore::extender
