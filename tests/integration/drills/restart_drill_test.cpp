// Fault drills: the collector or the extender dies and comes back while the other keeps running.
#include <csignal>
#include <cstdio>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/table/score_table_reader.h"
#include "tests/integration/drills/drill_fixture.h"

namespace netscore::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// How many times `text` occurs in `log`.
std::size_t count(const std::string& log, const std::string& text) {
  std::size_t n = 0;
  for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + text.size()))
    ++n;
  return n;
}

bool ready(const Extender& extender) {
  return extender.get("/readyz").status == 200;
}

// The snapshot readers of `shm` see now.
shm::SnapshotMeta published(const std::string& name) {
  shm::SnapshotMeta meta{};
  EXPECT_EQ(ScoreTableReader({.name = name}).lookup({}, {}, meta), ReadStatus::ok);
  return meta;
}

class RestartDrill : public DrillTest {};

TEST_F(RestartDrill, CollectorKilledThenRestartedWhileTheExtenderServes) {
  auto collector = start_collector();
  const Extender extender = start_extender({std::string("NETSCORE_MAX_AGE=") + kShortMaxAge});
  ASSERT_TRUE(eventually([&] { return ready(extender) && real_scores(extender.prioritize()); }))
      << extender.prioritize().body << "\n"
      << collector->log();

  // A malformed ceiling fails every node with the reason, whatever the table holds (so a collector
  // stalled past the short max age cannot fail this check).
  EXPECT_THAT(
      extender.filter("fast").body,
      HasSubstr(
          R"("NodeNames":[],"FailedNodes":{},"FailedAndUnresolvableNodes":{"node-00000":"netscore: annotation)"));

  collector->signal(SIGKILL);
  ASSERT_EQ(collector->wait_exit(std::chrono::seconds(30)), 128 + SIGKILL);
  // No writer now: the last snapshot is frozen and served as it is until it is max-age old. Both
  // sides of that are measured from the snapshot's own publish time on CLOCK_MONOTONIC (the
  // extender's clock too), not from the kill, so a slow machine cannot move them: an answer
  // received by then must be fresh, a request sent after it must be stale.
  const shm::SnapshotMeta frozen = published(shm_);
  const std::int64_t stale_after_ns =
      frozen.published_mono_ns + std::chrono::nanoseconds(kShortMaxAgeValue).count();
  const std::string frozen_id = R"("publish_id":)" + std::to_string(frozen.publish_id) + ",";
  EXPECT_THAT(extender.get("/table").body, HasSubstr(frozen_id));
  int fresh_answers = 0;
  HttpReply scores;
  ASSERT_TRUE(eventually(
      [&] {
        const std::int64_t sent = mono_now_ns();
        scores = extender.prioritize();
        if (mono_now_ns() <= stale_after_ns) {
          EXPECT_TRUE(real_scores(scores)) << "stale before the max age";
          ++fresh_answers;
        }
        return sent > stale_after_ns;
      },
      kPatience));
  EXPECT_TRUE(neutral_scores(scores)) << "still fresh after the max age";
  std::printf("answers from the frozen snapshot before the max age: %d\n", fresh_answers);
  const HttpReply readyz = extender.get("/readyz");
  EXPECT_EQ(readyz.status, 503);
  EXPECT_THAT(readyz.body, HasSubstr("stale"));
  EXPECT_TRUE(neutral_scores(extender.prioritize()));
  // NETSCORE_STALE_POLICY=open (the default): a stale table filters nothing out.
  EXPECT_THAT(
      extender.filter("1").body,
      HasSubstr(R"("NodeNames":["node-00000","node-00003","node-00005"],"FailedNodes":{},)"));
  EXPECT_THAT(extender.get("/table").body, HasSubstr(R"("state":"stale")"));
  EXPECT_THAT(extender.get("/table").body, HasSubstr(frozen_id));

  const auto successor = start_collector();
  EXPECT_TRUE(successor->wait_for_log("took_over=true", kPatience)) << successor->log();
  EXPECT_TRUE(eventually([&] { return ready(extender); })) << successor->log();
  EXPECT_TRUE(real_scores(extender.prioritize()));
  EXPECT_EQ(extender.process->wait_exit(std::chrono::milliseconds(0)), -1)
      << "the extender must keep running";
}

TEST_F(RestartDrill, RestartedExtenderIsReadyOnItsFirstRequest) {
  const auto collector = start_collector();
  Extender first = start_extender();
  ASSERT_TRUE(eventually([&] { return ready(first) && real_scores(first.prioritize()); }))
      << collector->log();
  first.process->signal(SIGTERM);
  EXPECT_EQ(first.process->wait_exit(std::chrono::seconds(30)), 0) << first.process->log();

  // No polling here: the new extender attaches before it accepts, so the very first answers count.
  const Extender second = start_extender();
  const HttpReply readyz = second.get("/readyz");
  EXPECT_EQ(readyz.status, 200) << readyz.body;
  EXPECT_TRUE(real_scores(second.prioritize()));
}

TEST_F(RestartDrill, CollectorWithBiggerCapacityRecreatesTheTableAndTheExtenderFollows) {
  auto collector = start_collector({"NETSCORE_MAX_NODES=64"});
  const Extender extender = start_extender();
  ASSERT_TRUE(eventually([&] { return ready(extender) && real_scores(extender.prioritize()); }))
      << collector->log();
  EXPECT_THAT(extender.get("/table").body, HasSubstr(R"("capacity":64,)"));

  collector->signal(SIGTERM);
  ASSERT_EQ(collector->wait_exit(std::chrono::seconds(30)), 0) << collector->log();
  const auto bigger = start_collector({"NETSCORE_MAX_NODES=256"});
  EXPECT_TRUE(bigger->wait_for_log("took_over=false", kPatience)) << bigger->log();
  // The extender polls the name once a second and maps the new segment without a restart.
  EXPECT_TRUE(eventually([&] {
    return extender.get("/table").body.find(R"("capacity":256,)") != std::string::npos;
  })) << extender.get("/table").body;
  EXPECT_TRUE(eventually([&] { return ready(extender); }));
  EXPECT_TRUE(real_scores(extender.prioritize()));
  EXPECT_EQ(count(extender.process->log(), "table attached"), 2U) << extender.process->log();
  EXPECT_THAT(extender.process->log(), Not(HasSubstr("critical")));
  EXPECT_EQ(extender.process->wait_exit(std::chrono::milliseconds(0)), -1)
      << "the extender must keep running";
}

}  // namespace
}  // namespace netscore::testing
