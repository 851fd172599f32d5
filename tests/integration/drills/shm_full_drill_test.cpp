// Fault drill: /dev/shm has no room for the table. A real full tmpfs cannot be made without
// privileges over a shared machine, so the collector runs with RLIMIT_FSIZE below the segment size
// and SIGXFSZ ignored: posix_fallocate then fails with EFBIG exactly where a full /dev/shm fails
// with ENOSPC.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/config.h"
#include "common/table/score_table_reader.h"
#include "tests/integration/drills/drill_fixture.h"

namespace netscore::testing {
namespace {

using ::testing::HasSubstr;

// Far below the default capacity's segment (megabytes), far above what the log needs.
constexpr std::uint64_t kFileSizeLimit = 64 * 1024;

class ShmFullDrill : public DrillTest {
 protected:
  // The collector's log lines at error level or above.
  static std::vector<std::string> error_lines(const std::string& log) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < log.size()) {
      const auto end = std::min(log.find('\n', at), log.size());
      const std::string line = log.substr(at, end - at);
      if (line.find(" error ") != std::string::npos ||
          line.find(" critical ") != std::string::npos) {
        lines.push_back(line);
      }
      at = end + 1;
    }
    return lines;
  }

  // Nothing a reader (the extender) would accept is left under the name.
  void expect_no_acceptable_table() const {
    try {
      ScoreTableReader reader({shm_.str()});
      FAIL() << "a reader attached to " << shm_.str();
    } catch (const shm::TableError& e) {
      EXPECT_THAT(e.what(), HasSubstr("cannot open"));
    }
    EXPECT_FALSE(std::filesystem::exists("/dev/shm/" + shm_.str()));
  }

  void expect_clear_failure(BinaryProcess& collector) const {
    EXPECT_EQ(collector.wait_exit(kPatience), 1) << collector.log();
    const auto errors = error_lines(collector.log());
    ASSERT_EQ(errors.size(), 1U) << collector.log();
    EXPECT_THAT(errors[0], HasSubstr("/dev/shm/" + shm_.str()));
    EXPECT_THAT(errors[0], HasSubstr("File too large"));
    EXPECT_THAT(collector.log(), ::testing::Not(HasSubstr("started ")));
  }
};

TEST_F(ShmFullDrill, NewTableThatDoesNotFitExitsNonZeroAndLeavesNothing) {
  ASSERT_GT(shm::compute_layout(ShmConfig{}.capacity).segment_bytes, kFileSizeLimit);
  auto collector = start_collector({}, kFileSizeLimit);
  expect_clear_failure(*collector);
  expect_no_acceptable_table();
}

TEST_F(ShmFullDrill, BiggerTableThatDoesNotFitReplacesNothingAReaderWouldAccept) {
  {
    auto small = start_collector({"NETSCORE_MAX_NODES=16"});
    ASSERT_TRUE(eventually([&] {
      try {
        shm::SnapshotMeta meta{};
        return ScoreTableReader({shm_.str()}).lookup({}, {}, meta) == ReadStatus::ok;
      } catch (const shm::TableError&) {
        return false;
      }
    })) << small->log();
    small->signal(SIGTERM);
    ASSERT_EQ(small->wait_exit(std::chrono::seconds(30)), 0);
  }
  auto bigger = start_collector({}, kFileSizeLimit);
  expect_clear_failure(*bigger);
  expect_no_acceptable_table();
}

TEST_F(ShmFullDrill, SameCapacityTakesTheTableOverWithoutGrowingIt) {
  ASSERT_GT(shm::compute_layout(1024).segment_bytes, kFileSizeLimit) << "creating would fail too";
  {
    auto first = start_collector({"NETSCORE_MAX_NODES=1024"});
    ASSERT_TRUE(first->wait_for_log("took_over=false", kPatience)) << first->log();
    first->signal(SIGTERM);
    ASSERT_EQ(first->wait_exit(std::chrono::seconds(30)), 0);
  }
  auto successor = start_collector({"NETSCORE_MAX_NODES=1024"}, kFileSizeLimit);
  EXPECT_TRUE(successor->wait_for_log("took_over=true", kPatience)) << successor->log();
  successor->signal(SIGTERM);
  EXPECT_EQ(successor->wait_exit(std::chrono::seconds(30)), 0) << successor->log();
}

}  // namespace
}  // namespace netscore::testing
