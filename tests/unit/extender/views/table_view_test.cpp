#include "extender/views/table_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TableView view() {
  TableView v;
  v.attached = true;
  v.freshness = Freshness::fresh;
  v.age_ns = 2'500'000'000;
  v.now_wall_ms = 10'000;
  v.max_age = "1m";
  v.meta.node_count = 2;
  v.meta.flags = shm::kSnapshotCorrected;
  v.corrected = true;
  v.has_status = true;
  v.status.refresh_interval_ms = 1000;
  v.heard_ns = 500'000'000;
  v.rows = {{"quiet",
             {{.raw = 10,
               .node_score = 90,
               .sample_ms = 9'000,
               .rate = 2,
               .corrected_node_score = 20,
               .flags = shm::kEntryValid | shm::kEntryHasSeries | shm::kEntryRateValid},
              true}},
            {"busy",
             {{.raw = 500,
               .node_score = 10,
               .sample_ms = 9'000,
               .corrected_node_score = 80,
               .flags = shm::kEntryValid},
              true}}};
  v.missing = {"ghost"};
  return v;
}

TEST(TableViewTest, CollectorState) {
  shm::CollectorStatus status{};
  status.refresh_interval_ms = 1000;
  EXPECT_EQ(collector_state(nullptr, 0), "unknown");
  EXPECT_EQ(collector_state(&status, 3'000'000'000), "ok");
  EXPECT_EQ(collector_state(&status, 3'000'000'001), "silent");
  status.consecutive_failures = 1;
  EXPECT_EQ(collector_state(&status, 0), "failing");
}

TEST(TableViewTest, JsonCarriesEffectiveScoresAndNullRates) {
  const std::string json = render_table_json(view());
  EXPECT_THAT(json, StartsWith(R"({"table":{"attached":true,"attach_error":"","state":"fresh",)"
                               R"("age_seconds":2.5,"max_age":"1m","scoring":"request",)"));
  EXPECT_THAT(json, HasSubstr(R"("name":"quiet","raw":10.0,)"));
  EXPECT_THAT(json, HasSubstr(R"("rate":2.0,)"));
  EXPECT_THAT(json, HasSubstr(R"("effective_score":20,"effective_extender_score":2,)"));
  EXPECT_THAT(json, HasSubstr(R"("name":"busy",)"));
  EXPECT_THAT(json, HasSubstr(R"("rate":null,)"));
  EXPECT_THAT(json, HasSubstr(R"("missing_nodes":["ghost"],"missing_nodes_dropped":0,)"));
  EXPECT_THAT(json, HasSubstr(R"("last_event_age_seconds":null,)"));
}

TEST(TableViewTest, TextSortsByEffectiveScore) {
  const std::string text = render_table_text(view());
  EXPECT_THAT(text, StartsWith("table: fresh attached=true age=2.5s max_age=1m nodes=2 "));
  EXPECT_THAT(text, HasSubstr("correction: on (EFF = measured + expected traffic)\n"));
  EXPECT_LT(text.find("\nbusy "), text.find("\nquiet "));
  EXPECT_THAT(text, HasSubstr("missing nodes (1): ghost\n"));
}

TEST(TableViewTest, DetachedTableMetricsSayOnlyThat) {
  MetricFamilies families;
  collect_table_metrics(nullptr, 0, families);
  std::string out;
  write_prometheus_text(families, out);
  EXPECT_EQ(out,
            "# HELP netscore_extender_table_attached 1 when the shared-memory score table is "
            "mapped.\n# TYPE netscore_extender_table_attached gauge\n"
            "netscore_extender_table_attached 0\n");
}

TEST(TableViewTest, ReadsAnUnattachedTable) {
  const TableAttachment detached(ScoreTableReader::Options{"netscore-table-view-none", false, 8});
  MissingNodes missing;
  missing.add("ghost");
  Config config;
  config.max_age = {std::chrono::seconds(60), "1m"};
  const TableView v = read_table_view(detached, missing, config, 0);
  EXPECT_FALSE(v.attached);
  EXPECT_EQ(v.freshness, Freshness::detached);
  EXPECT_EQ(v.max_age, "1m");
  EXPECT_TRUE(v.missing.empty());  // the names come from the snapshot comparison
}

}  // namespace
}  // namespace netscore::extender
