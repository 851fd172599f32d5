#include "common/logging.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace netscore {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::trace:
      return spdlog::level::trace;
    case LogLevel::debug:
      return spdlog::level::debug;
    case LogLevel::info:
      return spdlog::level::info;
    case LogLevel::warn:
      return spdlog::level::warn;
    case LogLevel::error:
      return spdlog::level::err;
    case LogLevel::off:
      return spdlog::level::off;
  }
  return spdlog::level::info;
}

// %* in the json pattern: the message payload as an escaped JSON string body.
class JsonMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string escaped;
    append_json_escaped(std::string_view(msg.payload.data(), msg.payload.size()), escaped);
    dest.append(escaped.data(), escaped.data() + escaped.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonMessage>();
  }
};

}  // namespace

void append_json_escaped(std::string_view text, std::string& out) {
  // RapidJSON's writer escapes but cannot repair invalid UTF-8, so each byte that does not start a
  // valid sequence (its own check: RFC 3629, no overlongs or surrogates) becomes U+FFFD first.
  rapidjson::StringBuffer valid;
  for (std::size_t at = 0; at < text.size();) {
    rapidjson::MemoryStream rest(text.data() + at, text.size() - at);
    const std::size_t mark = valid.GetSize();
    if (rapidjson::UTF8<>::Validate(rest, valid)) {
      at += rest.Tell();
    } else {
      valid.Pop(valid.GetSize() - mark);
      rapidjson::UTF8<>::Encode(valid, 0xFFFDU);
      ++at;
    }
  }
  rapidjson::StringBuffer quoted;
  rapidjson::Writer<rapidjson::StringBuffer> writer(quoted);
  writer.String(valid.GetString(), static_cast<rapidjson::SizeType>(valid.GetSize()));
  out.append(quoted.GetString() + 1, quoted.GetSize() - 2);
}

void init_logging(std::string_view binary, LogLevel level, LogFormat format) {
  auto logger = spdlog::stderr_logger_mt(std::string(binary));
  if (format == LogFormat::json) {
    // The logger name is the binary's own fixed name, so it needs no escaping; the level names
    // are spdlog's ("trace", "debug", "info", "warning", "error", "critical").
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<JsonMessage>('*').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"%n","msg":"%*"})");
    logger->set_formatter(std::move(formatter));
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %n %v");
  }
  logger->set_level(to_spdlog(level));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace netscore
