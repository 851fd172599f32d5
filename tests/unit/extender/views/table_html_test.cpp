#include "extender/views/table_html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TableHtmlTest, PrefersHtmlWhenAccepted) {
  EXPECT_TRUE(prefers_html("text/html,application/xhtml+xml"));
  EXPECT_FALSE(prefers_html("application/json"));
  EXPECT_FALSE(prefers_html(""));
}

TEST(TableHtmlTest, EscapesNamesAndErrors) {
  TableView v;
  v.attach_error = "no <table>";
  v.rows = {{"n<1>", {{.raw = 2048, .node_score = 70, .flags = shm::kEntryValid}, true}}};
  const std::string html = render_table_html(v, 0);
  EXPECT_THAT(html, HasSubstr("<code>no &lt;table&gt;</code>"));
  EXPECT_THAT(html, HasSubstr("data-node=\"n&lt;1&gt;\""));
  EXPECT_THAT(html, Not(HasSubstr("<1>")));
  EXPECT_THAT(html, HasSubstr("2.0 KiB"));
  EXPECT_THAT(html, HasSubstr("auto-refresh every 10s"));
  EXPECT_THAT(html, Not(HasSubstr("http-equiv")));
}

TEST(TableHtmlTest, BannerPerStateAndRefresh) {
  TableView v;
  v.freshness = Freshness::stale;
  v.age_ns = 75'000'000'000;
  v.max_age = "1m";
  const std::string html = render_table_html(v, 5);
  EXPECT_THAT(html, HasSubstr("data-state=\"stale\">Stale: no successful refresh for 75.0s, over "
                              "max age 1m; every node gets the neutral score</div>"));
  EXPECT_THAT(html, HasSubstr("<meta http-equiv=\"refresh\" content=\"5\">"));
  EXPECT_THAT(html, HasSubstr("id=\"no-nodes\""));
}

}  // namespace
}  // namespace netscore::extender
