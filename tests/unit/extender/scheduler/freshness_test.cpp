#include "extender/scheduler/freshness.h"

#include <gtest/gtest.h>

#include <optional>
#include <string_view>
#include <vector>

#include "common/table/score_table_writer.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

class FreshnessTest : public ::testing::Test {
 protected:
  // Publishes node "a"; returns the snapshot's publish time.
  std::int64_t publish() {
    if (!writer_) writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 8});
    const std::vector<TableEntry> rows = {
        {{.raw = 1, .raw_score = 1, .node_score = 90, .flags = shm::kEntryValid}, "a"}};
    writer_->publish(rows, {});
    attach();
    Lookup l = lookup(0);
    return l.meta.published_mono_ns;
  }
  void attach() {
    attachment_.emplace(ScoreTableReader::Options{name_, 8});
    ASSERT_TRUE(attachment_->poll());
  }
  Lookup lookup(std::int64_t now) {
    const std::vector<std::string_view> names = {"a"};
    found_.assign(1, NodeScore{});
    return lookup_nodes(attachment_->reader(), names, {}, found_, now, 60 * kSecond);
  }

  netscore::testing::TableName name_{"freshness"};
  std::optional<ScoreTableWriter> writer_;
  std::optional<TableAttachment> attachment_;
  std::vector<NodeScore> found_;
};

TEST_F(FreshnessTest, NoReaderIsDetached) {
  std::vector<NodeScore> out(1, NodeScore{{}, true});
  const std::vector<std::string_view> names = {"a"};
  EXPECT_EQ(lookup_nodes(nullptr, names, {}, out, 0, kSecond).freshness, Freshness::detached);
  EXPECT_FALSE(out[0].found);
}

TEST_F(FreshnessTest, NothingPublishedIsEmpty) {
  writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 8});
  attach();
  EXPECT_EQ(lookup(0).freshness, Freshness::empty);
}

TEST_F(FreshnessTest, FreshUntilOlderThanMaxAge) {
  const std::int64_t published = publish();
  const Lookup fresh = lookup(published + 60 * kSecond);
  EXPECT_EQ(fresh.freshness, Freshness::fresh);
  EXPECT_TRUE(found_[0].found);
  EXPECT_EQ(fresh.age_ns, 60 * kSecond);
  EXPECT_EQ(lookup(published + 60 * kSecond + 1).freshness, Freshness::stale);
}

TEST_F(FreshnessTest, FailingCollectorIsStaleOnceItsLastSuccessIsTooOld) {
  const std::int64_t published = publish();
  shm::CollectorStatus status{};
  status.consecutive_failures = 3;
  status.last_success_mono_ns = published - 90 * kSecond;
  writer_->record_status(status);
  const Lookup l = lookup(published + kSecond);
  EXPECT_EQ(l.freshness, Freshness::stale);
  EXPECT_EQ(l.age_ns, 91 * kSecond);
}

TEST(FreshnessWordsTest, NamesAndWording) {
  EXPECT_EQ(to_string(Freshness::busy), "busy");
  EXPECT_EQ(stale_for(75'040'000'000, "max age 1m"),
            "no successful refresh for 75.0s, over max age 1m");
  Config config;
  config.max_age = {std::chrono::seconds(90), "90s"};
  EXPECT_EQ(max_age_ns(config), 90 * kSecond);
}

}  // namespace
}  // namespace netscore::extender
