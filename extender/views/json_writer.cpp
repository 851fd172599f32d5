#include "extender/views/json_writer.h"

#include <time.h>

#include <spdlog/fmt/fmt.h>

#include "common/table/score_table_layout.h"

namespace netscore::extender {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

}  // namespace

void JsonWriter::key(std::string_view k) {
  w_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

void JsonWriter::value(const JsonScalar& v) {
  std::visit(Overloaded{[&](std::nullptr_t) { w_.Null(); }, [&](bool b) { w_.Bool(b); },
                        [&](std::int64_t n) { w_.Int64(n); },
                        [&](std::uint64_t n) { w_.Uint64(n); }, [&](double d) { w_.Double(d); },
                        [&](std::string_view s) {
                          w_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
                        }},
             v.value_);
}

void JsonWriter::fields(std::initializer_list<JsonField> fields) {
  for (const auto& [k, v] : fields) {
    key(k);
    value(v);
  }
}

std::string iso_time(std::int64_t wall_ms) {
  const time_t seconds = static_cast<time_t>(wall_ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     wall_ms % 1000);
}

void write_priced_by(JsonWriter& j, std::string_view key, std::uint32_t entry_flags) {
  j.key(key);
  j.begin_array();
  for (const auto& [flag, name] : shm::kPricedBy) {
    if ((entry_flags & flag) != 0) j.value(name);
  }
  j.end_array();
}

}  // namespace netscore::extender
