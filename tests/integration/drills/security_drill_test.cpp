// Security checks on the real binaries: secrets stay out of every output, a non-loopback bind
// warns.
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/drills/drill_fixture.h"

namespace netscore::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kPassword = "pw-secret-drill-7";
constexpr const char* kToken = "tok-secret-drill-7";

class SecurityDrill : public DrillTest {};

TEST_F(SecurityDrill, SecretsNeverReachTableMetricsErrorBodiesOrLogs) {
  const std::string token_file = (std::filesystem::temp_directory_path() /
                                  ("netscore-drill-token-" + std::to_string(getpid())))
                                     .string();
  std::ofstream(token_file) << kToken << "\n";
  // Nothing listens there, so every refresh fails and the error lands in the table's status.
  const std::string url =
      "http://user:" + std::string(kPassword) + "@127.0.0.1:" + std::to_string(free_local_port());
  auto collector = start_collector({"NETSCORE_PROMETHEUS_URL=" + url,
                                    "NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE=" + token_file,
                                    "NETSCORE_LOG_LEVEL=trace"});
  const Extender extender = start_extender({"NETSCORE_LOG_LEVEL=trace"});
  std::string table;
  ASSERT_TRUE(eventually([&] {
    table = extender.get("/table").body;
    return table.find(R"("status":"failing")") != std::string::npos;
  })) << table
      << "\n"
      << collector->log();
  EXPECT_THAT(table, Not(HasSubstr(R"("last_error":"")")))
      << "the failure must be recorded to prove anything";

  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"/table", table},
      {"/table?format=text", extender.get("/table?format=text").body},
      {"/metrics", extender.get("/metrics").body},
      {"/readyz", extender.get("/readyz").body},
      {"400 body", http_post(extender.base + "/prioritize", R"({"Pod":{},"NodeNames":[1]})").body},
      {"404 body", extender.get("/nowhere").body},
      {"collector log", collector->log()},
      {"extender log", extender.process->log()},
  };
  for (const auto& [what, text] : outputs) {
    SCOPED_TRACE(what);
    EXPECT_FALSE(text.empty());
    EXPECT_THAT(text, Not(HasSubstr(kPassword)));
    EXPECT_THAT(text, Not(HasSubstr(kToken)));
  }
  collector->signal(SIGTERM);
  EXPECT_EQ(collector->wait_exit(std::chrono::seconds(30)), 0);
  std::filesystem::remove(token_file);
}

TEST_F(SecurityDrill, NonLoopbackBindWarnsAndLoopbackDoesNot) {
  // Listening on every interface; the test still talks to it over 127.0.0.1 only.
  const Extender wide = start_extender({"NETSCORE_LISTEN=0.0.0.0:0"});
  ASSERT_FALSE(wide.base.empty());
  EXPECT_EQ(wide.get("/healthz").status, 200);
  EXPECT_THAT(wide.process->log(),
              HasSubstr("warning netscore-extender listening on non-loopback address=0.0.0.0"));

  const Extender loopback = start_extender();
  ASSERT_FALSE(loopback.base.empty());
  EXPECT_EQ(loopback.get("/healthz").status, 200);
  EXPECT_THAT(loopback.process->log(), Not(HasSubstr("non-loopback")));
}

}  // namespace
}  // namespace netscore::testing
