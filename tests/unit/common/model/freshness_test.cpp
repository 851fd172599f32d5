#include "common/model/freshness.h"

#include <gtest/gtest.h>

namespace netscore::model {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kMaxAge = 60 * kSecond;

TEST(SnapshotAge, FreshUntilOlderThanMaxAge) {
  const SnapshotAge at_limit = snapshot_age(10 * kSecond, nullptr, 70 * kSecond, kMaxAge);
  EXPECT_TRUE(at_limit.fresh);
  EXPECT_EQ(at_limit.age_ns, 60 * kSecond);
  const SnapshotAge past = snapshot_age(10 * kSecond, nullptr, 70 * kSecond + 1, kMaxAge);
  EXPECT_FALSE(past.fresh);
  EXPECT_EQ(past.age_ns, 60 * kSecond + 1);
}

TEST(SnapshotAge, AFailingCollectorIsStaleOnceItsLastSuccessIsTooOld) {
  const CollectorProgress failing{.consecutive_failures = 3, .last_success_mono_ns = 0};
  const SnapshotAge stale = snapshot_age(89 * kSecond, &failing, 91 * kSecond, kMaxAge);
  EXPECT_FALSE(stale.fresh);
  EXPECT_EQ(stale.age_ns, 91 * kSecond);
  EXPECT_TRUE(snapshot_age(89 * kSecond, &failing, 60 * kSecond, kMaxAge).fresh);
}

TEST(SnapshotAge, ACollectorThatIsNotFailingIsJudgedByThePublishAlone) {
  const CollectorProgress healthy{.consecutive_failures = 0, .last_success_mono_ns = 0};
  EXPECT_TRUE(snapshot_age(89 * kSecond, &healthy, 91 * kSecond, kMaxAge).fresh);
}

}  // namespace
}  // namespace netscore::model
