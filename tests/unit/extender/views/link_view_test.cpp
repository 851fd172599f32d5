#include "extender/views/link_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/config.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TableRow row(std::string name, shm::NodeFigures figures) {
  return {std::move(name), {figures, true}};
}

TEST(LinkViewTest, NodesWithoutASpeedGiveNoUtilisation) {
  const std::vector<TableRow> rows = {
      row("raw", {.rate = 10, .flags = shm::kEntryValid | shm::kEntryRateValid})};
  const LinkSummary links = summarise_links(rows);
  EXPECT_EQ(links.raw, 1U);
  EXPECT_EQ(links.utilisation, 0U);
  EXPECT_EQ(links.none, 1U);
  EXPECT_EQ(links.max_receive_utilisation, std::nullopt);
  EXPECT_EQ(links.max_transmit_utilisation, std::nullopt);

  MetricFamilies families;
  collect_link_metrics(shm::SnapshotMeta{}, rows, families);
  std::string out;
  write_prometheus_text(families, out);
  EXPECT_THAT(out, HasSubstr("netscore_extender_table_scoring_info{basis=\"raw\","
                             "direction=\"receive\"} 1\n"));
  // The family is declared, with no sample to mistake for an idle link.
  EXPECT_THAT(out, HasSubstr("# TYPE netscore_extender_table_max_utilisation gauge\n"));
  EXPECT_THAT(out, Not(HasSubstr("netscore_extender_table_max_utilisation{")));
}

TEST(LinkViewTest, InvalidNodesCountBySpeedSourceButNotByBasis) {
  // A utilisation flag on an unscored node must not count it as scored.
  const std::vector<TableRow> rows = {
      row("unscored", {.flags = shm::kEntryUtilisation | shm::kEntrySpeedMeasured, .speed = 100}),
      row("measured", {.rate = 30,
                       .flags = shm::kEntryValid | shm::kEntryRateValid | shm::kEntrySpeedMeasured |
                                shm::kEntryUtilisation,
                       .speed = 100}),
      row("fallback", {.rate = 70,
                       .flags = shm::kEntryValid | shm::kEntryRateValid | shm::kEntrySpeedFallback |
                                shm::kEntrySpeedUnusable | shm::kEntryUtilisation,
                       .speed = 100})};
  const LinkSummary links = summarise_links(rows);
  EXPECT_EQ(links.utilisation, 2U);
  EXPECT_EQ(links.raw, 0U);
  EXPECT_EQ(links.measured, 2U);
  EXPECT_EQ(links.fallback, 1U);
  EXPECT_EQ(links.none, 0U);
  EXPECT_EQ(links.unusable, 1U);
  EXPECT_EQ(links.max_receive_utilisation, 0.7);  // 70 / 100
  EXPECT_EQ(links.max_transmit_utilisation, std::nullopt);

  JsonWriter j;
  j.begin_object();
  shm::SnapshotMeta meta{};
  meta.basis = static_cast<std::uint32_t>(ScoreBasis::utilisation);
  meta.direction = static_cast<std::uint32_t>(Direction::transmit);
  write_link_summary(j, meta, links);
  j.end_object();
  EXPECT_EQ(j.str(), R"({"basis":"utilisation","direction":"transmit",)"
                     R"("nodes_by_basis":{"raw":0,"utilisation":2},)"
                     R"("nodes_by_speed_source":{"measured":2,"fallback":1,"none":0},)"
                     R"("speed_unusable_nodes":1,"max_receive_utilisation":0.7,)"
                     R"("max_transmit_utilisation":null})");
}

}  // namespace
}  // namespace netscore::extender
