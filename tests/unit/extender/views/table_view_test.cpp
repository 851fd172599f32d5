#include "extender/views/table_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/table/score_table_writer.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
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
                               R"("age_seconds":2.5,"max_age":"1m","normalisation":"request",)"));
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
  const TableAttachment detached(ScoreTableReader::Options{"netscore-table-view-none", 8});
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

// A snapshot scored on utilisation in the busier direction, mixing bases and speed sources:
//   util-measured  rx 250e6 / tx 500e6 B/s over a measured 1.25e9: utilisations 0.2 and 0.4
//   util-fallback  rx 100e6 B/s over the fallback 1.25e8 (a device said -1): utilisation 0.8
//   raw-nospeed    no speed (a device said -1, no fallback): scored on bytes
//   invalid        no figure at all
class MixedTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    constexpr std::uint32_t kScored = shm::kEntryValid | shm::kEntryHasSeries;
    const std::vector<TableEntry> entries = {
        {{.raw = 9e9,
          .raw_score = 400'000,
          .node_score = 50,
          .sample_ms = 9'000,
          .rate = 250e6,
          .corrected_raw_score = 400'000,
          .corrected_node_score = 50,
          .flags = kScored | shm::kEntryRateValid | shm::kEntryTransmitValid |
                   shm::kEntryTransmitRateValid | shm::kEntrySpeedMeasured | shm::kEntryUtilisation,
          .raw_transmit = 18e9,
          .transmit_rate = 500e6,
          .speed = 1.25e9,
          .scored = 0.4},
         "util-measured"},
        {{.raw = 6e9,
          .raw_score = 800'000,
          .node_score = 0,
          .sample_ms = 9'000,
          .rate = 100e6,
          .corrected_raw_score = 800'000,
          .flags = kScored | shm::kEntryRateValid | shm::kEntrySpeedFallback |
                   shm::kEntrySpeedUnusable | shm::kEntryUtilisation,
          .speed = 1.25e8,
          .scored = 0.8},
         "util-fallback"},
        {{.raw = 60'000,
          .raw_score = 60'000,
          .node_score = 100,
          .sample_ms = 9'000,
          .rate = 1'000,
          .corrected_raw_score = 60'000,
          .corrected_node_score = 100,
          .flags = kScored | shm::kEntryRateValid | shm::kEntrySpeedUnusable,
          .scored = 60'000},
         "raw-nospeed"},
        {{.flags = shm::kEntryHasSeries}, "invalid"}};
    writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
    writer_->publish(entries, SnapshotInfo{.eval_time_ms = 9'000,
                                           .basis = ScoreBasis::utilisation,
                                           .direction = Direction::max});
    ASSERT_TRUE(attachment_.poll()) << attachment_.last_error();
  }

  TableView read() {
    Config config;
    config.max_age = {std::chrono::seconds(60), "1m"};
    return read_table_view(attachment_, MissingNodes{}, config, 0);
  }

  netscore::testing::TableName name_{"table-view"};
  std::optional<ScoreTableWriter> writer_;
  TableAttachment attachment_{{.name = name_, .max_retries = 64}};
};

TEST_F(MixedTableTest, JsonShowsMeasuredFiguresBesideScoredOnes) {
  const std::string json = render_table_json(read());
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  ASSERT_FALSE(doc.HasParseError()) << json;
  const auto& table = doc["table"];
  EXPECT_STREQ(table["basis"].GetString(), "utilisation");
  EXPECT_STREQ(table["direction"].GetString(), "max");
  EXPECT_EQ(table["nodes_by_basis"]["raw"].GetUint(), 1U);
  EXPECT_EQ(table["nodes_by_basis"]["utilisation"].GetUint(), 2U);
  EXPECT_EQ(table["nodes_by_speed_source"]["measured"].GetUint(), 1U);
  EXPECT_EQ(table["nodes_by_speed_source"]["fallback"].GetUint(), 1U);
  EXPECT_EQ(table["nodes_by_speed_source"]["none"].GetUint(), 2U);
  EXPECT_EQ(table["speed_unusable_nodes"].GetUint(), 2U);
  EXPECT_EQ(table["max_receive_utilisation"].GetDouble(), 0.8);
  EXPECT_EQ(table["max_transmit_utilisation"].GetDouble(), 0.4);

  std::map<std::string, const rapidjson::Value*> nodes;
  for (const auto& node : doc["nodes"].GetArray()) nodes[node["name"].GetString()] = &node;
  ASSERT_EQ(nodes.size(), 4U);
  const auto& measured = *nodes["util-measured"];
  EXPECT_EQ(measured["raw"].GetDouble(), 9e9);  // the scored figures stay as they were
  EXPECT_EQ(measured["raw_score"].GetInt64(), 400'000);
  EXPECT_EQ(measured["rate"].GetDouble(), 250e6);
  EXPECT_EQ(measured["raw_transmit"].GetDouble(), 18e9);
  EXPECT_EQ(measured["transmit_rate"].GetDouble(), 500e6);
  EXPECT_EQ(measured["speed"].GetDouble(), 1.25e9);
  EXPECT_STREQ(measured["speed_source"].GetString(), "measured");
  EXPECT_FALSE(measured["speed_unusable"].GetBool());
  EXPECT_EQ(measured["receive_utilisation"].GetDouble(), 0.2);
  EXPECT_EQ(measured["transmit_utilisation"].GetDouble(), 0.4);
  EXPECT_STREQ(measured["basis"].GetString(), "utilisation");
  EXPECT_EQ(measured["scored"].GetDouble(), 0.4);

  const auto& fallback = *nodes["util-fallback"];
  EXPECT_TRUE(fallback["raw_transmit"].IsNull());
  EXPECT_TRUE(fallback["transmit_rate"].IsNull());
  EXPECT_EQ(fallback["speed"].GetDouble(), 1.25e8);
  EXPECT_STREQ(fallback["speed_source"].GetString(), "fallback");
  EXPECT_TRUE(fallback["speed_unusable"].GetBool());
  EXPECT_EQ(fallback["receive_utilisation"].GetDouble(), 0.8);
  EXPECT_TRUE(fallback["transmit_utilisation"].IsNull());

  const auto& raw = *nodes["raw-nospeed"];
  EXPECT_TRUE(raw["speed"].IsNull());
  EXPECT_TRUE(raw["speed_source"].IsNull());
  EXPECT_TRUE(raw["speed_unusable"].GetBool());
  EXPECT_TRUE(raw["receive_utilisation"].IsNull());
  EXPECT_STREQ(raw["basis"].GetString(), "raw");
  EXPECT_EQ(raw["scored"].GetDouble(), 60'000);
  EXPECT_EQ(raw["score"].GetInt64(), 100);

  const auto& invalid = *nodes["invalid"];
  EXPECT_TRUE(invalid["rate"].IsNull());
  EXPECT_TRUE(invalid["speed"].IsNull());
  EXPECT_FALSE(invalid["speed_unusable"].GetBool());
  EXPECT_TRUE(invalid["basis"].IsNull());
}

TEST_F(MixedTableTest, TextShowsBasisSpeedAndUtilisationInEffectiveOrder) {
  const std::string text = render_table_text(read());
  EXPECT_THAT(text, HasSubstr("scoring: basis=utilisation direction=max nodes raw=1 "
                              "utilisation=2; speed measured=1 fallback=1 none=2 unusable=2\n"));
  EXPECT_THAT(text, HasSubstr("BASIS             SPEED_B/S  RX_UTIL  TX_UTIL     TX_RATE_B/S\n"));
  // raw-nospeed (100) before util-measured (50) before util-fallback (0), invalid last.
  const auto at = [&](std::string_view name) { return text.find("\n" + std::string(name) + " "); };
  EXPECT_LT(at("raw-nospeed"), at("util-measured"));
  EXPECT_LT(at("util-measured"), at("util-fallback"));
  EXPECT_LT(at("util-fallback"), at("invalid"));
  EXPECT_THAT(text, HasSubstr("utilisation      1250000000     20.0     40.0       500000000\n"));
  EXPECT_THAT(text, HasSubstr("utilisation       125000000     80.0        -               -\n"));
  EXPECT_THAT(text, HasSubstr("raw                       -        -        -               -\n"));
  EXPECT_THAT(text, HasSubstr("-                         -        -        -               -\n"));
}

TEST_F(MixedTableTest, MetricsCountBasesAndSpeedSourcesPerSnapshot) {
  MetricFamilies families;
  collect_table_metrics(attachment_.reader(), 0, families);
  std::string out;
  write_prometheus_text(families, out);
  EXPECT_THAT(out, HasSubstr("# TYPE netscore_extender_table_scoring_info gauge\n"
                             "netscore_extender_table_scoring_info{basis=\"utilisation\","
                             "direction=\"max\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_table_nodes_by_basis{basis=\"raw\"} 1\n"
                             "netscore_extender_table_nodes_by_basis{basis=\"utilisation\"} 2\n"));
  EXPECT_THAT(out,
              HasSubstr("netscore_extender_table_nodes_by_speed_source{source=\"measured\"} 1\n"
                        "netscore_extender_table_nodes_by_speed_source{source=\"fallback\"} 1\n"
                        "netscore_extender_table_nodes_by_speed_source{source=\"none\"} 2\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_table_nodes_speed_unusable 2\n"));
  EXPECT_THAT(out,
              HasSubstr("netscore_extender_table_max_utilisation{direction=\"receive\"} 0.8\n"
                        "netscore_extender_table_max_utilisation{direction=\"transmit\"} 0.4\n"));
}

// Whether the collector reads the traffic per pod, how many pods, and when.
TEST_F(MixedTableTest, ThePodTrafficStateIsShown) {
  shm::CollectorStatus status{};
  status.refresh_interval_ms = 1000;
  status.pod_traffic_state = static_cast<std::uint32_t>(shm::PodTrafficState::in_use);
  status.pod_traffic_pods = 12;
  status.pod_traffic_watched = 10;
  status.pod_traffic_eval_wall_ms = 1'700'000'000'000;
  status.pod_traffic_recent_pods = 3;
  status.pod_traffic_recent_eval_wall_ms = 1'700'000'004'000;
  writer_->record_status(status);
  const std::string json = render_table_json(read());
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  ASSERT_FALSE(doc.HasParseError()) << json;
  EXPECT_STREQ(doc["collector"]["pod_traffic"].GetString(), "in use");
  EXPECT_EQ(doc["collector"]["pod_traffic_pods"].GetUint(), 12U);
  EXPECT_EQ(doc["collector"]["pod_traffic_watched_pods"].GetUint(), 10U);
  EXPECT_EQ(doc["collector"]["pod_traffic_eval_wall_ms"].GetInt64(), 1'700'000'000'000);
  EXPECT_EQ(doc["collector"]["pod_traffic_recent_pods"].GetUint(), 3U);
  EXPECT_EQ(doc["collector"]["pod_traffic_recent_eval_wall_ms"].GetInt64(), 1'700'000'004'000);
}

// The collector's label patches for the descheduler (NETSCORE_REBALANCE_LABEL).
TEST_F(MixedTableTest, RebalancePatchesAreCounted) {
  shm::CollectorStatus status{};
  status.refresh_interval_ms = 1000;
  status.rebalance_nominees = 3;
  status.rebalance_patches_total = 11;
  status.rebalance_patch_failures_total = 4;
  writer_->record_status(status);
  MetricFamilies families;
  collect_table_metrics(attachment_.reader(), 0, families);
  std::string out;
  write_prometheus_text(families, out);
  EXPECT_THAT(out, HasSubstr("netscore_extender_collector_rebalance_nominees 3\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_collector_rebalance_patches_total 11\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_collector_rebalance_patch_failures_total 4\n"));
}

// What the collector asks apart from its refresh query, and when it asked the link speeds in use.
TEST_F(MixedTableTest, RequestsAskedApartAndTheLinkSpeedsTimeAreShown) {
  shm::CollectorStatus status{};
  status.refresh_interval_ms = 1000;
  status.side_requests_total = 7;
  status.side_requests_failed_total = 2;
  status.link_speeds_eval_wall_ms = 1'700'000'000'500;
  writer_->record_status(status);
  const std::string json = render_table_json(read());
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  ASSERT_FALSE(doc.HasParseError()) << json;
  EXPECT_EQ(doc["collector"]["side_requests_total"].GetUint64(), 7U);
  EXPECT_EQ(doc["collector"]["side_requests_failed_total"].GetUint64(), 2U);
  EXPECT_EQ(doc["collector"]["link_speeds_eval_wall_ms"].GetInt64(), 1'700'000'000'500);
  EXPECT_THAT(render_table_text(read()), HasSubstr(" side_requests=7 side_request_failures=2 "));
  MetricFamilies families;
  collect_table_metrics(attachment_.reader(), 0, families);
  std::string out;
  write_prometheus_text(families, out);
  EXPECT_THAT(out, HasSubstr("netscore_extender_collector_side_requests_total 7\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_collector_side_request_failures_total 2\n"));
  EXPECT_THAT(out, HasSubstr("netscore_extender_collector_link_speeds_timestamp_seconds "
                             "1700000000.5\n"));
  // No speeds asked yet: no timestamp rather than 1970.
  status.link_speeds_eval_wall_ms = 0;
  writer_->record_status(status);
  MetricFamilies without;
  collect_table_metrics(attachment_.reader(), 0, without);
  out.clear();
  write_prometheus_text(without, out);
  EXPECT_THAT(out, Not(HasSubstr("link_speeds_timestamp_seconds")));
}

}  // namespace

}  // namespace netscore::extender
