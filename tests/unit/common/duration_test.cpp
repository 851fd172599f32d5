#include "common/duration.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace netscore {
namespace {

using std::chrono::milliseconds;

TEST(PromDuration, AcceptsPrometheusUnits) {
  EXPECT_EQ(parse_prom_duration("500ms")->value, milliseconds(500));
  EXPECT_EQ(parse_prom_duration("15s")->value, milliseconds(15'000));
  EXPECT_EQ(parse_prom_duration("5m")->value, milliseconds(300'000));
  EXPECT_EQ(parse_prom_duration("1h")->value, milliseconds(3'600'000));
  EXPECT_EQ(parse_prom_duration("1d")->value, milliseconds(86'400'000));
  EXPECT_EQ(parse_prom_duration("1w")->value, milliseconds(7 * 86'400'000LL));
  EXPECT_EQ(parse_prom_duration("1y")->value, milliseconds(365 * 86'400'000LL));
}

TEST(PromDuration, AcceptsCompoundLargestFirst) {
  EXPECT_EQ(parse_prom_duration("1h30m")->value, milliseconds(5'400'000));
  EXPECT_EQ(parse_prom_duration("1m30s500ms")->value, milliseconds(90'500));
  EXPECT_EQ(parse_prom_duration("1h30m")->text, "1h30m");
}

TEST(PromDuration, RejectsMalformed) {
  for (const char* bad : {"", "0", "0s", "15", "s", "-5s", "1.5s", "5 m", "5M", "30m1h", "1s1s",
                          "1ms1s", "5mm", "99999999999999999999s", "300000000y"}) {
    EXPECT_FALSE(parse_prom_duration(bad).has_value()) << bad;
  }
}

TEST(PromDuration, TheLargestUnitThatDividesTheValueAndParsesBack) {
  EXPECT_EQ(prom_duration(milliseconds(60'000)).text, "1m");
  EXPECT_EQ(prom_duration(milliseconds(7'200'000)).text, "2h");
  EXPECT_EQ(prom_duration(milliseconds(90'000)).text, "90s");
  EXPECT_EQ(prom_duration(milliseconds(4'000)).text, "4s");
  EXPECT_EQ(prom_duration(milliseconds(1'500)).text, "1500ms");
  for (const std::int64_t ms : {1'500, 4'000, 60'000, 90'000, 7'200'000}) {
    const auto parsed = parse_prom_duration(prom_duration(milliseconds(ms)).text);
    ASSERT_TRUE(parsed.has_value()) << ms;
    EXPECT_EQ(parsed->value, milliseconds(ms));
  }
}

}  // namespace
}  // namespace netscore
