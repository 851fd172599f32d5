#include "common/quantity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace netscore {
namespace {

using ::testing::Optional;

TEST(ParseQuantity, TakesNumbersAndKubernetesQuantitySuffixes) {
  EXPECT_THAT(parse_quantity("2000000"), Optional(2000000.0));
  EXPECT_THAT(parse_quantity("1.5k"), Optional(1500.0));
  EXPECT_THAT(parse_quantity("10Mi"), Optional(10.0 * 1024 * 1024));
  EXPECT_THAT(parse_quantity("2G"), Optional(2e9));
  EXPECT_THAT(parse_quantity("0"), Optional(0.0));
  for (const char* bad :
       {"", "abc", "Mi", "1e3", "inf", "nan", "-1", "1.2.3", "10 Mi", "10m", "0x10", ".", "1Mib"}) {
    EXPECT_EQ(parse_quantity(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace netscore
