#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

// The JSON of the operator's views (/table, /explain): RapidJSON's writer, a key and its value in
// one call. Not thread-safe: one writer per document.
namespace netscore::extender {

// One JSON scalar; any integer type is written as that integer.
class JsonScalar {
 public:
  JsonScalar(std::nullptr_t) : value_(nullptr) {}
  JsonScalar(bool b) : value_(b) {}
  template <std::integral T>
  requires(!std::same_as<T, bool>) JsonScalar(T n) {
    if constexpr (std::signed_integral<T>) {
      value_ = static_cast<std::int64_t>(n);
    } else {
      value_ = static_cast<std::uint64_t>(n);
    }
  }
  JsonScalar(double d) : value_(d) {}
  JsonScalar(std::string_view s) : value_(s) {}
  JsonScalar(const std::string& s) : value_(std::string_view(s)) {}
  JsonScalar(const char* s) : value_(std::string_view(s)) {}

 private:
  friend class JsonWriter;
  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string_view> value_;
};

using JsonField = std::pair<std::string_view, JsonScalar>;

// The value, or null when there is none.
inline JsonScalar or_null(std::optional<double> value) {
  return value ? JsonScalar(*value) : JsonScalar(nullptr);
}

class JsonWriter {
 public:
  void value(const JsonScalar& v);
  void fields(std::initializer_list<JsonField> fields);
  void key(std::string_view k);
  void begin_object() { w_.StartObject(); }
  void end_object() { w_.EndObject(); }
  void begin_array() { w_.StartArray(); }
  void end_array() { w_.EndArray(); }
  // The document written so far.
  std::string str() const { return {buffer_.GetString(), buffer_.GetSize()}; }

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> w_{buffer_};
};

// "2026-11-27T12:00:00.000Z": a Unix time in ms as the views show it.
std::string iso_time(std::int64_t wall_ms);

// `key`: the names of what priced a node's expected traffic (shm::kPricedBy flags set in
// `entry_flags`).
void write_priced_by(JsonWriter& j, std::string_view key, std::uint32_t entry_flags);

}  // namespace netscore::extender
