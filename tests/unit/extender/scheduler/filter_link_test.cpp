#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/table/score_table_writer.h"
#include "extender/scheduler/filter.h"
#include "tests/support/table_name.h"

// The filter's transmit-rate and utilisation ceilings, over a table with link figures.
namespace netscore::extender {
namespace {

using ::testing::ElementsAre;

constexpr std::uint32_t kMeasured = shm::kEntryValid | shm::kEntryHasSeries | shm::kEntryRateValid |
                                    shm::kEntryTransmitRateValid | shm::kEntrySpeedMeasured;

struct Result {
  std::vector<std::string> passed;
  std::map<std::string, std::string> failed;
};

class FilterLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
  }

  // Speeds 1000 B/s; rates in B/s, so the utilisations are rate / 1000:
  //   rx-busy    rx 0.9, tx 0.1     tx-busy  rx 0.1, tx 0.9     calm  rx 0.5, tx 0.5
  //   nospeed    rx 900, tx 900 B/s, no speed (a device said -1)
  void publish(Direction direction) {
    const auto entry = [](std::string name, double rx, double tx, std::uint32_t flags,
                          double speed) {
      return TableEntry{{.raw = 1,
                         .raw_score = 1,
                         .node_score = 50,
                         .sample_ms = 1000,
                         .rate = rx,
                         .flags = flags,
                         .transmit_rate = tx,
                         .speed = speed},
                        std::move(name)};
    };
    const std::vector<TableEntry> entries = {
        entry("rx-busy", 900, 100, kMeasured, 1000), entry("tx-busy", 100, 900, kMeasured, 1000),
        entry("calm", 500, 500, kMeasured, 1000),
        entry("nospeed", 900, 900,
              (kMeasured & ~shm::kEntrySpeedMeasured) | shm::kEntrySpeedUnusable, 0)};
    if (!writer_) writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
    writer_->publish(entries, SnapshotInfo{.eval_time_ms = 1000, .direction = direction});
    attachment_.poll();
    ASSERT_NE(attachment_.reader(), nullptr) << attachment_.last_error();
  }

  Result run(std::string_view key, std::string_view value, std::int64_t now = mono_now_ns()) {
    static constexpr std::string_view kNames[] = {"rx-busy", "tx-busy", "calm", "nospeed",
                                                  "absent"};
    ExtenderArgs args;
    for (const auto name : kNames) {
      args.names.push_back(name);
      args.name_hashes.push_back(shm::name_hash(name));
    }
    args.pod_annotations = {{key, value}};
    Filter filter(config_);
    FilterOutcome outcome;
    filter.run(args, attachment_.reader(), now, outcome);
    Result r;
    for (const auto i : outcome.passed) r.passed.emplace_back(args.names[i]);
    for (const auto& f : outcome.failed) r.failed[std::string(args.names[f.index])] = f.reason;
    return r;
  }

  netscore::testing::TableName name_{"filter-link"};
  Config config_;
  std::optional<ScoreTableWriter> writer_;
  TableAttachment attachment_{{.name = name_, .allow_foreign_owner = false, .max_retries = 64}};
};

TEST_F(FilterLinkTest, TransmitRateCeilingComparesTheTransmitRate) {
  publish(Direction::receive);
  const Result r = run("netscore.io/max-transmit-rate", "800");
  // nospeed's transmit rate (900) is above too: the rate needs no speed.
  EXPECT_THAT(r.passed, ElementsAre("rx-busy", "calm", "absent"));
  ASSERT_EQ(r.failed.size(), 2U);
  EXPECT_EQ(r.failed.at("tx-busy"),
            "netscore: node transmit rate above the pod's netscore.io/max-transmit-rate of 800");
  EXPECT_EQ(r.failed.at("nospeed"), r.failed.at("tx-busy"));
}

TEST_F(FilterLinkTest, MalformedTransmitRateFailsEveryNode) {
  publish(Direction::receive);
  const Result r = run("netscore.io/max-transmit-rate", "fast");
  EXPECT_TRUE(r.passed.empty());
  EXPECT_EQ(r.failed.at("calm"),
            "netscore: annotation netscore.io/max-transmit-rate=\"fast\" is not bytes per second "
            "(e.g. 2000000 or 10Mi)");
}

TEST_F(FilterLinkTest, UtilisationInTheSnapshotsDirection) {
  publish(Direction::receive);
  Result r = run("netscore.io/max-utilisation", "0.8");
  // nospeed cannot be checked and passes (NETSCORE_STALE_POLICY=open); absent is not in the table.
  EXPECT_THAT(r.passed, ElementsAre("tx-busy", "calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.at("rx-busy"),
            "netscore: node receive link utilisation above the pod's netscore.io/max-utilisation "
            "of 0.8");

  publish(Direction::transmit);
  r = run("netscore.io/max-utilisation", "0.8");
  EXPECT_THAT(r.passed, ElementsAre("rx-busy", "calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.at("tx-busy"),
            "netscore: node transmit link utilisation above the pod's "
            "netscore.io/max-utilisation of 0.8");

  publish(Direction::max);
  r = run("netscore.io/max-utilisation", "0.8");
  EXPECT_THAT(r.passed, ElementsAre("calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.size(), 2U);
  EXPECT_EQ(r.failed.at("rx-busy"),
            "netscore: node max-direction link utilisation above the pod's "
            "netscore.io/max-utilisation of 0.8");
}

TEST_F(FilterLinkTest, UtilisationAsAPercentAndTheLimitIsInclusive) {
  publish(Direction::max);
  // 50%: calm sits exactly at 0.5 (500 / 1000) and passes.
  const Result r = run("netscore.io/max-utilisation", "50%");
  EXPECT_THAT(r.passed, ElementsAre("calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.at("tx-busy"),
            "netscore: node max-direction link utilisation above the pod's "
            "netscore.io/max-utilisation of 0.5");
}

TEST_F(FilterLinkTest, NodeWithoutASpeedFollowsTheStalePolicy) {
  publish(Direction::receive);
  config_.extender.stale_policy = StalePolicy::fail_closed;
  const Result r = run("netscore.io/max-utilisation", "95%");
  EXPECT_THAT(r.passed, ElementsAre("rx-busy", "tx-busy", "calm", "absent"));
  EXPECT_EQ(r.failed.at("nospeed"),
            "netscore: node link speed or rate unknown, cannot check netscore.io/max-utilisation "
            "(NETSCORE_STALE_POLICY=closed)");
}

TEST_F(FilterLinkTest, StaleTableNamesTheUtilisationAnnotation) {
  publish(Direction::receive);
  const std::int64_t stale = mono_now_ns() + 61'000'000'000;
  EXPECT_EQ(run("netscore.io/max-utilisation", "0.1", stale).passed.size(), 5U);
  config_.extender.stale_policy = StalePolicy::fail_closed;
  const Result r = run("netscore.io/max-utilisation", "0.1", stale);
  EXPECT_TRUE(r.passed.empty());
  EXPECT_EQ(r.failed.at("absent"),
            "netscore: score table stale, cannot check netscore.io/max-utilisation "
            "(NETSCORE_STALE_POLICY=closed)");
}

TEST_F(FilterLinkTest, MalformedUtilisationFailsEveryNode) {
  publish(Direction::receive);
  for (const std::string_view text : {"80", "150%", "-0.5", "x", "%", "", "0.8 ", "nan", "inf%"}) {
    const Result r = run("netscore.io/max-utilisation", text);
    EXPECT_TRUE(r.passed.empty()) << text;
    ASSERT_EQ(r.failed.size(), 5U) << text;
    EXPECT_THAT(
        r.failed.at("calm"),
        ::testing::HasSubstr("is not a fraction of the link from 0 to 1 (e.g. 0.8, or a percent)"))
        << text;
  }
  // The scheduler's formatting would garble a percent sign in the echoed value.
  EXPECT_EQ(run("netscore.io/max-utilisation", "150%").failed.at("calm"),
            "netscore: annotation netscore.io/max-utilisation=\"150?\" is not a fraction of the "
            "link from 0 to 1 (e.g. 0.8, or a percent)");
}

TEST_F(FilterLinkTest, PodsAskingForALinkCeilingAreConstrained) {
  Filter filter(config_);
  ExtenderArgs args;
  EXPECT_FALSE(filter.constrains(args));
  args.pod_annotations = {{"netscore.io/max-utilisation", "0.5"}};
  EXPECT_TRUE(filter.constrains(args));
  args.pod_annotations = {{"netscore.io/max-transmit-rate", "1Mi"}};
  EXPECT_TRUE(filter.constrains(args));
}

}  // namespace
}  // namespace netscore::extender
