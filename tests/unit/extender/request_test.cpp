#include "extender/request.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace netscore::extender {
namespace {

TEST(RequestTest, VerbNames) {
  EXPECT_EQ(to_string(Verb::prioritize), "prioritize");
  EXPECT_EQ(to_string(Verb::other), "other");
}

TEST(RequestTest, SplitsTargetAndQuery) {
  EXPECT_EQ(split_target("/table?format=text").path, "/table");
  EXPECT_EQ(split_target("/table?format=text").query, "format=text");
  EXPECT_EQ(split_target("/table").query, "");
  EXPECT_EQ(query_params("a=1&&b"), (std::vector<std::string_view>{"a=1", "", "b"}));
  EXPECT_EQ(query_params(""), (std::vector<std::string_view>{""}));
}

}  // namespace
}  // namespace netscore::extender
