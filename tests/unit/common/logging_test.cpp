#include "common/logging.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

namespace netscore {
namespace {

// Runs `log` with stderr redirected to a file and returns what was written.
template <class Log>
std::string captured_stderr(Log&& log) {
  char path[] = "/tmp/netscore-logging-test-XXXXXX";
  const int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  std::fflush(stderr);
  const int saved = ::dup(2);
  ::dup2(fd, 2);
  log();
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(path);
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class LoggingTest : public ::testing::Test {
 protected:
  void TearDown() override { spdlog::drop_all(); }
};

TEST_F(LoggingTest, JsonFormatWritesOneValidObjectPerLine) {
  const std::vector<std::string> messages = {
      "plain key=value",
      "quote \" backslash \\ tab \t newline \n end",
      "control \x01\x1f del \x7f",
      "utf-8 caf\xC3\xA9 \xE2\x9C\x93",
      "bad utf-8 \xC3 \xFF \xED\xA0\x80 end",
  };
  const std::string out = captured_stderr([&] {
    init_logging("netscore-test", LogLevel::info, LogFormat::json);
    for (const auto& m : messages) spdlog::warn("{}", m);
    spdlog::debug("below the level");
  });
  const auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), messages.size()) << out;
  const std::vector<std::string> expected = {
      "plain key=value",
      "quote \" backslash \\ tab \t newline \n end",
      "control \x01\x1f del \x7f",
      "utf-8 caf\xC3\xA9 \xE2\x9C\x93",
      "bad utf-8 \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD end",
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseValidateEncodingFlag>(lines[i].c_str());
    ASSERT_FALSE(doc.HasParseError()) << lines[i];
    ASSERT_TRUE(doc.IsObject());
    EXPECT_EQ(doc.MemberCount(), 4U) << lines[i];
    EXPECT_STREQ(doc["level"].GetString(), "warning");
    EXPECT_STREQ(doc["logger"].GetString(), "netscore-test");
    EXPECT_EQ(std::string(doc["time"].GetString()).size(),
              std::string("2026-01-02T03:04:05.678+00:00").size());
    EXPECT_EQ(std::string(doc["msg"].GetString(), doc["msg"].GetStringLength()), expected[i]);
  }
}

TEST_F(LoggingTest, TextFormatStaysTheDefault) {
  const std::string out = captured_stderr([] {
    init_logging("netscore-test", LogLevel::info);
    spdlog::info("hello key=\"v\"");
  });
  EXPECT_NE(out.find(" info netscore-test hello key=\"v\"\n"), std::string::npos) << out;
  EXPECT_NE(out.front(), '{');
}

}  // namespace
}  // namespace netscore
