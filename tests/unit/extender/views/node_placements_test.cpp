// /explain?node=: a node's recent pods from the table's ring of placements, each pod's latest
// record, newest first, beside the node's correction.
#include "extender/views/node_placements.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/table/score_table_writer.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;

shm::PlacementRecord placed(std::string_view node, std::string_view pod, std::int64_t at,
                            std::uint32_t receive_priced_by, double receive_rate) {
  shm::PlacementRecord r{};
  r.placed_wall_ms = at;
  r.written_wall_ms = at + 500;
  r.receive_rate = receive_rate;
  r.transmit_rate = -1;
  r.receive_priced_by = receive_priced_by;
  r.transmit_priced_by = shm::kEntryPricedByAverage;
  shm::set_placement_names(r, node, pod);
  return r;
}

class NodePlacementsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    writer_.publish(
        std::vector<TableEntry>{{{.raw_score = 1000,
                                  .expected = 1500,
                                  .corrected_raw_score = 2500,
                                  .placed_pods = 2,
                                  .flags = shm::kEntryValid | shm::kEntryPricedByMeasurement |
                                           shm::kEntryPricedByAverage},
                                 "node-a"}},
        {.eval_time_ms = 1, .pod_rate = 700});
    writer_.record_placement(
        placed("node-a", "shop/web-1", 10'000, shm::kEntryPricedByAverage, -1));
    writer_.record_placement(
        placed("node-b", "shop/web-2", 11'000, shm::kEntryPricedByAverage, -1));
    writer_.record_placement(placed("node-a", "ci/runner", 12'000, shm::kEntryPricedByAverage, -1));
    // web-1's own traffic read: its latest record.
    writer_.record_placement(
        placed("node-a", "shop/web-1", 10'000, shm::kEntryPricedByMeasurement, 1200));
  }

  netscore::testing::TableName name_{"placements"};
  ScoreTableWriter writer_{{.name = name_.str(), .capacity = 8}};
  ScoreTableReader reader_{{.name = name_.str()}};
};

TEST_F(NodePlacementsTest, EachPodOfTheNodeOnceByItsLatestRecordNewestFirst) {
  const NodePlacements v = node_placements(reader_, "node-a", 10, 22'000);
  EXPECT_TRUE(v.figures.found);
  EXPECT_EQ(v.figures.expected, 1500);
  ASSERT_EQ(v.pods.size(), 2U);
  EXPECT_EQ(std::string_view(v.pods[0].pod, v.pods[0].pod_len), "shop/web-1");
  EXPECT_EQ(v.pods[0].receive_priced_by, shm::kEntryPricedByMeasurement);
  EXPECT_EQ(std::string_view(v.pods[1].pod, v.pods[1].pod_len), "ci/runner");
  EXPECT_EQ(v.more, 0U);
  const NodePlacements one = node_placements(reader_, "node-a", 1, 22'000);
  ASSERT_EQ(one.pods.size(), 1U);
  EXPECT_EQ(one.more, 1U);
  const NodePlacements none = node_placements(reader_, "node-c", 10, 22'000);
  EXPECT_FALSE(none.figures.found);
  EXPECT_TRUE(none.pods.empty());
}

TEST_F(NodePlacementsTest, JsonNamesTheSourceAndThePriceBesideTheCorrection) {
  const std::string body =
      render_node_placements_json(node_placements(reader_, "node-a", 10, 22'000));
  rapidjson::Document d;
  d.Parse(body.c_str());
  ASSERT_FALSE(d.HasParseError()) << body;
  EXPECT_STREQ(d["node"].GetString(), "node-a");
  EXPECT_EQ(d["correction"]["expected"].GetDouble(), 1500);
  EXPECT_EQ(d["correction"]["placed_pods"].GetUint(), 2U);
  EXPECT_EQ(d["correction"]["corrected_raw_score"].GetInt64(), 2500);
  EXPECT_EQ(d["correction"]["pod_rate"].GetDouble(), 700);
  ASSERT_EQ(d["correction"]["priced_by"].Size(), 2U);
  EXPECT_STREQ(d["correction"]["priced_by"][0].GetString(), "own measurement");
  const auto& pods = d["recent_pods"];
  ASSERT_EQ(pods.Size(), 2U);
  EXPECT_STREQ(pods[0]["pod"].GetString(), "shop/web-1");
  EXPECT_EQ(pods[0]["age_seconds"].GetDouble(), 12);
  EXPECT_STREQ(pods[0]["placed"].GetString(), "1970-01-01T00:00:10.000Z");
  EXPECT_STREQ(pods[0]["receive"]["priced_by"].GetString(), "own measurement");
  EXPECT_EQ(pods[0]["receive"]["rate"].GetDouble(), 1200);
  EXPECT_STREQ(pods[0]["transmit"]["priced_by"].GetString(), "cluster average");
  EXPECT_TRUE(pods[0]["transmit"]["rate"].IsNull());
  EXPECT_STREQ(pods[1]["receive"]["priced_by"].GetString(), "cluster average");
  EXPECT_EQ(d["more_pods"].GetUint(), 0U);
}

TEST_F(NodePlacementsTest, TextListsThePodsUnderTheCorrection) {
  const std::string text =
      render_node_placements_text(node_placements(reader_, "node-a", 1, 22'000));
  EXPECT_THAT(text,
              HasSubstr("node node-a: expected 1500 over 2 placed pod(s), score 1000 -> 2500"));
  EXPECT_THAT(text, HasSubstr("costs 700 B/s"));
  EXPECT_THAT(text, HasSubstr("shop/web-1"));
  EXPECT_THAT(text, HasSubstr("1200 own measurement"));
  EXPECT_THAT(text, HasSubstr("- cluster average"));
  EXPECT_THAT(text, HasSubstr("(1 older pod(s) left out)"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("ci/runner")));
}

TEST_F(NodePlacementsTest, ALongPodNameShowsCut) {
  const std::string pod = "ns/" + std::string(200, 'x');
  writer_.record_placement(placed("node-a", pod, 13'000, shm::kEntryPricedByAverage, -1));
  const std::string text =
      render_node_placements_text(node_placements(reader_, "node-a", 10, 22'000));
  EXPECT_THAT(text, HasSubstr(pod.substr(0, shm::kPodNameBytes) + "\xE2\x80\xA6"));
}

}  // namespace
}  // namespace netscore::extender
