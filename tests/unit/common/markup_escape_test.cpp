#include "common/markup_escape.h"

#include <gtest/gtest.h>

#include <string>

namespace netscore {
namespace {

std::string escaped(std::string_view text) {
  std::string out = "prefix:";
  append_markup_escaped(text, out);
  return out;
}

TEST(MarkupEscape, EveryMarkupCharacterBecomesAReferenceAndTheRestIsKept) {
  EXPECT_EQ(escaped(R"(<a href="x">Tom & Jerry's</a>)"),
            "prefix:&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
}

TEST(MarkupEscape, AnAlreadyEscapedReferenceIsEscapedAgain) {
  EXPECT_EQ(escaped("&amp;"), "prefix:&amp;amp;");
}

TEST(MarkupEscape, Utf8AndControlBytesPassUnchanged) {
  EXPECT_EQ(escaped("n\xC3\xA9\t1"), "prefix:n\xC3\xA9\t1");
  EXPECT_EQ(escaped(""), "prefix:");
}

}  // namespace
}  // namespace netscore
