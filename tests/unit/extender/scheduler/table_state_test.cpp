#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "extender/scheduler/table_state.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;

class TableStateLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>(
        "state", std::make_shared<spdlog::sinks::ostream_sink_st>(out_));
    logger->set_pattern("%l %v");
    spdlog::set_default_logger(logger);
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }

  std::string lines() {
    std::string all = out_.str();
    out_.str({});
    return all;
  }

  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
  TableStateLog log_;
};

TEST_F(TableStateLogTest, LogsEachChangeOnceAndIgnoresBusyReads) {
  log_.observe({Freshness::detached, "score table not attached: No such file or directory"});
  EXPECT_EQ(lines(),
            "warning table state from=start to=detached: neutral scores, filter per "
            "NETSCORE_STALE_POLICY "
            "reason=\"score table not attached: No such file or directory\"\n");
  log_.observe({Freshness::detached, "score table not attached: No such file or directory"});
  EXPECT_EQ(lines(), "");
  log_.observe({Freshness::fresh, ""});
  EXPECT_EQ(lines(), "info table state from=detached to=fresh: scores steer pods\n");
  log_.observe({Freshness::busy, "score table busy"});
  log_.observe({Freshness::fresh, ""});
  EXPECT_EQ(lines(), "");
  log_.observe({Freshness::stale,
                "score table stale: no successful refresh for 61.0s, over NETSCORE_MAX_AGE 1m"});
  EXPECT_THAT(lines(), HasSubstr("warning table state from=fresh to=stale"));
  log_.observe({Freshness::stale,
                "score table stale: no successful refresh for 62.0s, over NETSCORE_MAX_AGE 1m"});
  EXPECT_EQ(lines(), "");
  log_.observe({Freshness::fresh, ""});
  EXPECT_EQ(lines(), "info table state from=stale to=fresh: scores steer pods\n");
}

}  // namespace
}  // namespace netscore::extender
