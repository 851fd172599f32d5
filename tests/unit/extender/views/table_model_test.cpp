#include "extender/views/table_model.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace netscore::extender {
namespace {

// A corrected snapshot whose seed and corrected scores disagree, read by a collector not heard
// from for 5 s at a 1 s refresh interval.
TableView silent_corrected_read() {
  TableView v;
  v.freshness = Freshness::fresh;
  v.now_wall_ms = 10'000;
  v.meta.flags = shm::kSnapshotCorrected;
  v.corrected = true;
  v.has_status = true;
  v.status.refresh_interval_ms = 1000;
  v.heard_ns = 5'000'000'000;
  v.rows = {{"seed-best",
             {{.raw = 300,
               .node_score = 90,
               .sample_ms = 8'000,
               .corrected_node_score = 10,
               .flags = shm::kEntryValid},
              true}},
            {"unscored", {{.raw = 900, .node_score = 100, .corrected_node_score = 100}, true}},
            {"eff-best",
             {{.raw = 600,
               .node_score = 20,
               .sample_ms = 9'500,
               .rate = 5,
               .corrected_node_score = 80,
               .flags = shm::kEntryValid | shm::kEntryRateValid | shm::kEntryHasSeries},
              true}}};
  return v;
}

TEST(TableModelTest, RanksByTheEffectiveScoreWithUnscoredRowsLast) {
  const TableView read = silent_corrected_read();
  const TableModel m = model_table(read);
  ASSERT_EQ(m.rows.size(), 3U);
  std::vector<std::string_view> order;
  for (const std::size_t i : m.ranked) order.push_back(m.rows[i].name);
  EXPECT_EQ(order, (std::vector<std::string_view>{"eff-best", "seed-best", "unscored"}));
  EXPECT_EQ(m.rows[2].effective_score, 80);
  EXPECT_EQ(m.rows[2].effective_extender_score, 8);
  EXPECT_EQ(m.rows[2].extender_score, 2);
}

TEST(TableModelTest, RowsKeepTheReadsOrderAndSayWhatIsUnknown) {
  const TableView read = silent_corrected_read();
  const TableModel m = model_table(read);
  const NodeRow& eff = m.rows[2];
  EXPECT_EQ(eff.name, "eff-best");
  EXPECT_EQ(eff.score, &read.rows[2].score);
  EXPECT_TRUE(eff.has_series);
  EXPECT_EQ(eff.rate, std::optional<double>(5));
  EXPECT_EQ(eff.transmit_rate, std::nullopt);
  EXPECT_EQ(eff.speed, std::nullopt);
  EXPECT_EQ(eff.speed_source, std::nullopt);
  EXPECT_EQ(eff.basis, std::optional<std::string_view>("raw"));
  EXPECT_DOUBLE_EQ(eff.sample_age_seconds, 0.5);
  EXPECT_EQ(m.rows[1].basis, std::nullopt);  // not scored
  // The traffic bar's scale leaves the unscored row's 900 out.
  EXPECT_EQ(m.max_valid_raw, 600);
}

TEST(TableModelTest, TheCollectorsSilenceAndItsLastWord) {
  const TableView read = silent_corrected_read();
  const TableModel m = model_table(read);
  EXPECT_EQ(m.collector, "silent");
  EXPECT_EQ(m.collector_last_word, "ok");
  EXPECT_EQ(m.heard_seconds, std::optional<double>(5));
  EXPECT_EQ(m.watch_event_age_seconds, std::nullopt);

  const TableView never;
  const TableModel unknown = model_table(never);
  EXPECT_EQ(unknown.collector, "unknown");
  EXPECT_EQ(unknown.heard_seconds, std::nullopt);
  EXPECT_EQ(unknown.state, "detached");
  EXPECT_TRUE(unknown.ranked.empty());
}

}  // namespace
}  // namespace netscore::extender
