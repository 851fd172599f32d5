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

TEST(TableHtmlTest, SortsByTheEffectiveScoreTheTextViewUses) {
  TableView v;
  v.meta.flags = shm::kSnapshotCorrected;
  v.corrected = true;
  // The seed scores and the corrected ones disagree: the corrected ones (what cluster scoring
  // answers) order the rows.
  v.rows = {{"seed-best",
             {{.node_score = 90, .corrected_node_score = 10, .flags = shm::kEntryValid}, true}},
            {"eff-best",
             {{.node_score = 20, .corrected_node_score = 80, .flags = shm::kEntryValid}, true}},
            {"unscored", {{.node_score = 100, .corrected_node_score = 100}, true}}};
  const std::string html = render_table_html(v, 0);
  const auto at = [&](std::string_view name) {
    return html.find("data-node=\"" + std::string(name) + "\"");
  };
  ASSERT_NE(at("seed-best"), std::string::npos);
  EXPECT_LT(at("eff-best"), at("seed-best"));
  EXPECT_LT(at("seed-best"), at("unscored"));
  EXPECT_THAT(html, HasSubstr("data-node=\"eff-best\" data-score=\"20\" "
                              "data-effective-score=\"80\""));
  const std::string text = render_table_text(v);
  EXPECT_LT(text.find("\neff-best "), text.find("\nseed-best "));
}

TEST(TableHtmlTest, ShowsBasisSpeedUtilisationAndTransmitRate) {
  TableView v;
  v.meta.basis = static_cast<std::uint32_t>(ScoreBasis::utilisation);
  v.meta.direction = static_cast<std::uint32_t>(Direction::transmit);
  v.rows = {{"util",
             {{.rate = 256e6,
               .flags = shm::kEntryValid | shm::kEntryRateValid | shm::kEntryTransmitRateValid |
                        shm::kEntrySpeedMeasured | shm::kEntryUtilisation,
               .transmit_rate = 64 * 1024 * 1024,
               .speed = 1024e6},
              true}},
            {"bytes", {{.flags = shm::kEntryValid}, true}}};
  const std::string html = render_table_html(v, 0);
  EXPECT_THAT(html, HasSubstr("Scored on utilisation in direction transmit"));
  // 256e6 / 1024e6 = 25%; 64 MiB/s / 1024e6 = 6.5536%.
  EXPECT_THAT(html, HasSubstr("<td>utilisation</td><td class=\"num\">976.6 MiB/s</td>"
                              "<td class=\"num\">25.0%</td><td class=\"num\">6.6%</td>"
                              "<td class=\"num\">64.0 MiB/s</td>"));
  EXPECT_THAT(html, HasSubstr("<td>raw</td><td class=\"num\">-</td><td class=\"num\">-</td>"
                              "<td class=\"num\">-</td><td class=\"num\">-</td>"));
}

}  // namespace
}  // namespace netscore::extender
