#include "common/parse_number.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

namespace netscore {
namespace {

TEST(ParseNumberTest, ReadsTheWholeText) {
  EXPECT_EQ(parse_number<unsigned>("42"), std::optional<unsigned>(42));
  EXPECT_EQ(parse_number<std::int64_t>("-7"), std::optional<std::int64_t>(-7));
  EXPECT_EQ(parse_number<double>("2.5e-1"), std::optional<double>(0.25));
  EXPECT_EQ(parse_number<unsigned>("42x"), std::nullopt);
  EXPECT_EQ(parse_number<unsigned>(" 42"), std::nullopt);
  EXPECT_EQ(parse_number<unsigned>("+42"), std::nullopt);
  EXPECT_EQ(parse_number<unsigned>(""), std::nullopt);
}

TEST(ParseNumberTest, RefusesWhatStrtoulWouldWrapOrOverflow) {
  EXPECT_EQ(parse_number<unsigned>("-1"), std::nullopt);
  EXPECT_EQ(parse_number<std::uint8_t>("256"), std::nullopt);
  EXPECT_EQ(parse_number<std::uint64_t>("18446744073709551615"),
            std::optional<std::uint64_t>(18446744073709551615ULL));
  EXPECT_EQ(parse_number<std::uint64_t>("18446744073709551616"), std::nullopt);
}

TEST(ParseNumberTest, RefusesNonFiniteValues) {
  EXPECT_EQ(parse_number<double>("nan"), std::nullopt);
  EXPECT_EQ(parse_number<double>("inf"), std::nullopt);
  EXPECT_EQ(parse_number<double>("1e999"), std::nullopt);
}

}  // namespace
}  // namespace netscore
