#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include "common/clock.h"
#include "common/table/score_table_writer.h"
#include "extender/http/handlers.h"
#include "tests/unit/extender/http/handlers_fixture.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
namespace http = boost::beast::http;

class HandlersTest : public HandlersFixture {
 protected:
  HandlersTest() : HandlersFixture("handlers") {}

  // raw_score a=0, b=50, c=200; cluster node_score a=34, b=95, c=4; "bad" is an invalid entry.
  void publish() {
    const std::vector<TableEntry> entries = {{{.raw = 0.0,
                                               .raw_score = 0,
                                               .node_score = 34,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 0,
                                               .corrected_node_score = 34,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "a"},
                                             {{.raw = 50.9,
                                               .raw_score = 50,
                                               .node_score = 95,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 50,
                                               .corrected_node_score = 95,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "b"},
                                             {{.raw = 200.0,
                                               .raw_score = 200,
                                               .node_score = 4,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 200,
                                               .corrected_node_score = 4,
                                               .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                              "c"},
                                             {{.raw = 1e9,
                                               .raw_score = 0,
                                               .node_score = 0,
                                               .sample_ms = 1000,
                                               .corrected_raw_score = 0,
                                               .corrected_node_score = 0,
                                               .flags = shm::kEntryHasSeries},
                                              "bad"}};
    ASSERT_TRUE(publish_rows(entries, {.eval_time_ms = 1000}));
  }
  Response prioritize(std::string_view names_json, std::int64_t now = mono_now_ns()) {
    return prioritize_names(names_json, now);
  }
  std::int64_t stale_now() const { return mono_now_ns() + 61'000'000'000; }
};

TEST_F(HandlersTest, RequestModeNormalisesOverTheRequestedNodes) {
  publish();
  // max raw_score 200: a 100-0=100→10, b 100-25=75→8, c 100-100=0→0, unknown and invalid →
  // neutral 5.
  const Response r = prioritize(R"(["a","b","c","zz","bad"])");
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(
      r.body,
      R"([{"Host":"a","Score":10},{"Host":"b","Score":8},{"Host":"c","Score":0},{"Host":"zz","Score":5},{"Host":"bad","Score":5}])");
  // Without c the max is 50: a 100→10, b 100-100=0→0.
  EXPECT_EQ(prioritize(R"(["a","b"])").body, R"([{"Host":"a","Score":10},{"Host":"b","Score":0}])");
}

TEST_F(HandlersTest, ClusterModeUsesThePrecomputedScore) {
  config_.extender.normalisation = Normalisation::cluster;
  publish();
  // node_score 34→3, 95→10, 4→0.
  EXPECT_EQ(prioritize(R"(["a","b","c"])").body,
            R"([{"Host":"a","Score":3},{"Host":"b","Score":10},{"Host":"c","Score":0}])");
}

TEST_F(HandlersTest, StaleEmptyOrDetachedTableGivesEveryNodeTheNeutralScore) {
  config_.extender.neutral_score = 4;
  const std::string all4 = R"([{"Host":"a","Score":4},{"Host":"c","Score":4}])";
  EXPECT_EQ(prioritize(R"(["a","c"])").body, all4);  // detached
  writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
  attachment_.emplace(ScoreTableReader::Options{name_, 64});
  ASSERT_TRUE(attachment_->poll());
  EXPECT_EQ(prioritize(R"(["a","c"])").body, all4);  // attached, nothing published
  publish();
  EXPECT_EQ(prioritize(R"(["a","c"])", stale_now()).body, all4);
  EXPECT_EQ(prioritize(R"(["a","c"])").body, R"([{"Host":"a","Score":10},{"Host":"c","Score":0}])");
}

TEST_F(HandlersTest, CollectorFailingLongerThanMaxAgeMakesTheTableStale) {
  publish();
  shm::CollectorStatus status{};
  status.consecutive_failures = 3;
  status.last_success_mono_ns = mono_now_ns() - 120'000'000'000;
  writer_->record_status(status);
  EXPECT_EQ(prioritize(R"(["a","c"])").body, R"([{"Host":"a","Score":5},{"Host":"c","Score":5}])");
  EXPECT_THAT(call(http::verb::get, "/readyz").body, HasSubstr("stale"));
  status.last_success_mono_ns = mono_now_ns();
  writer_->record_status(status);
  EXPECT_EQ(prioritize(R"(["a","c"])").body, R"([{"Host":"a","Score":10},{"Host":"c","Score":0}])");
}

TEST_F(HandlersTest, FilterPassesEverythingWithoutTheAnnotation) {
  publish();
  const Response r =
      call(http::verb::post, "/netscore/filter", R"({"Pod":{},"NodeNames":["a","c","zz"]})");
  EXPECT_EQ(
      r.body,
      R"({"Nodes":null,"NodeNames":["a","c","zz"],"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""})");
}

TEST_F(HandlersTest, FilterEchoesFullNodesWhenNotNodeCacheCapable) {
  publish();
  const std::string a = R"({"metadata":{"name":"a","labels":{"x":"\u003c"}}})";
  const std::string c = R"({"metadata":{"name":"c"}})";
  const Response r = call(
      http::verb::post, "/netscore/filter",
      R"({"Pod":{"metadata":{"annotations":{"netscore.io/max-receive-rate":"100"}}},"Nodes":{"items":[)" +
          a + "," + c + R"(]},"NodeNames":null})");
  EXPECT_EQ(
      r.body,
      R"({"Nodes":{"metadata":{},"items":[)" + a + "," + c +
          R"(]},"NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{},"Error":""})");
}

TEST_F(HandlersTest, BadRequestsGet4xxWithJsonError) {
  const Response bad = call(http::verb::post, "/netscore/prioritize", "{nope");
  EXPECT_EQ(bad.status, 400U);
  EXPECT_THAT(bad.body, HasSubstr(R"({"error":"malformed JSON)"));
  const Response wrong_method = call(http::verb::get, "/netscore/filter");
  EXPECT_EQ(wrong_method.status, 405U);
  EXPECT_EQ(wrong_method.allow, "POST");
  EXPECT_EQ(call(http::verb::post, "/healthz").status, 405U);
  EXPECT_EQ(call(http::verb::get, "/filter").status, 405U);  // any prefix, none included
  EXPECT_EQ(call(http::verb::get, "/netscore/filterx").status, 404U);
}

TEST_F(HandlersTest, ReadyzExplainsWhyNotReady) {
  Response r = call(http::verb::get, "/readyz");
  EXPECT_EQ(r.status, 503U);
  EXPECT_THAT(r.body, HasSubstr("not attached"));
  publish();
  EXPECT_EQ(call(http::verb::get, "/readyz").status, 200U);
  r = call(http::verb::get, "/readyz", {}, stale_now());
  EXPECT_EQ(r.status, 503U);
  EXPECT_THAT(r.body, HasSubstr("stale"));
  shared_.draining = true;
  EXPECT_THAT(call(http::verb::get, "/readyz").body, HasSubstr("draining"));
}

// The pod's probe: a stale or missing table must not make a serving extender unready.
TEST_F(HandlersTest, ReadyzExcludingTheTableIsReadyWhileServingButNotWhileDraining) {
  Response r = call(http::verb::get, "/readyz?exclude=table");
  EXPECT_EQ(r.status, 200U);
  EXPECT_EQ(r.body.rfind("ok (excluded: score table not attached: ", 0), 0U) << r.body;
  publish();
  r = call(http::verb::get, "/readyz?exclude=table", {}, stale_now());
  EXPECT_EQ(r.status, 200U);
  EXPECT_THAT(r.body, HasSubstr("(excluded: score table stale: no successful refresh for"));
  EXPECT_EQ(call(http::verb::get, "/readyz?exclude=table").body, "ok\n");
  EXPECT_EQ(call(http::verb::get, "/readyz?exclude=other", {}, stale_now()).status, 503U);
  shared_.draining = true;
  EXPECT_EQ(call(http::verb::get, "/readyz?exclude=table").status, 503U);
}

// A dead or hung collector stops ending refresh attempts: after three refresh intervals /table
// and /metrics say so, even though its last attempt succeeded.
TEST_F(HandlersTest, CollectorNotHeardFromForThreeIntervalsIsSilentNotOk) {
  publish();
  const std::int64_t now = mono_now_ns();
  shm::CollectorStatus status{};
  status.refresh_interval_ms = 15'000;
  status.heartbeat_mono_ns = now - 44'000'000'000;
  writer_->record_status(status);
  EXPECT_THAT(call(http::verb::get, "/table", {}, now).body,
              HasSubstr(R"("collector":{"status":"ok","last_heard_seconds":44)"));
  EXPECT_THAT(call(http::verb::get, "/metrics", {}, now).body,
              HasSubstr("\nnetscore_extender_collector_silent 0\n"));
  const std::int64_t later = now + 2'000'000'000;
  EXPECT_THAT(call(http::verb::get, "/table", {}, later).body,
              HasSubstr(R"("collector":{"status":"silent","last_heard_seconds":46)"));
  EXPECT_THAT(call(http::verb::get, "/table?format=text", {}, later).body,
              HasSubstr("collector: silent (not heard from for 46s)"));
  const std::string metrics = call(http::verb::get, "/metrics", {}, later).body;
  EXPECT_THAT(metrics, HasSubstr("\nnetscore_extender_collector_silent 1\n"));
  EXPECT_THAT(metrics, HasSubstr("\nnetscore_extender_collector_last_heard_seconds 46\n"));
}

TEST_F(HandlersTest, TableListsNodesHeaderAndMissingNodes) {
  publish();
  prioritize(R"(["a","ghost"])");
  const Response json = call(http::verb::get, "/table");
  EXPECT_EQ(json.status, 200U);
  EXPECT_THAT(json.body, HasSubstr(R"("state":"fresh")"));
  EXPECT_THAT(json.body, HasSubstr(R"("node_count":4)"));
  EXPECT_THAT(json.body, HasSubstr(R"("capacity":64)"));
  EXPECT_THAT(json.body, HasSubstr(R"("missing_nodes":["ghost"])"));
  EXPECT_THAT(
      json.body,
      HasSubstr(
          R"({"name":"b","raw":50.9,"raw_score":50,"score":95,"extender_score":10,"sample_time_ms":1000,)"));
  const Response text = call(http::verb::get, "/table?format=text");
  EXPECT_EQ(text.content_type, "text/plain; charset=utf-8");
  // Sorted by score: b (95) before a (34) before c (4); invalid last.
  const auto b = text.body.find("\nb "), a = text.body.find("\na "), c = text.body.find("\nc "),
             bad = text.body.find("\nbad ");
  ASSERT_NE(bad, std::string::npos);
  EXPECT_LT(b, a);
  EXPECT_LT(a, c);
  EXPECT_LT(c, bad);
}

TEST_F(HandlersTest, MetricsExposeTableAndMissingNodes) {
  publish();
  prioritize(R"(["a","ghost"])");
  shared_.metrics.record(0, Verb::prioritize, 200, 15'000);
  const Response r = call(http::verb::get, "/metrics");
  EXPECT_THAT(r.body,
              HasSubstr("netscore_extender_requests_total{verb=\"prioritize\",code=\"200\"} 1\n"));
  EXPECT_THAT(r.body, HasSubstr("netscore_extender_request_duration_seconds_bucket{verb="
                                "\"prioritize\",le=\"1e-05\"} 0\n"));
  EXPECT_THAT(r.body, HasSubstr("netscore_extender_request_duration_seconds_bucket{verb="
                                "\"prioritize\",le=\"2e-05\"} 1\n"));
  EXPECT_THAT(r.body, HasSubstr("netscore_extender_table_nodes 4\n"));
  EXPECT_THAT(r.body, HasSubstr("netscore_extender_missing_node_lookups_total 1\n"));
  EXPECT_THAT(r.body, HasSubstr("# TYPE netscore_extender_table_age_seconds gauge\n"));
}

}  // namespace
}  // namespace netscore::extender

// A wall-clock jump cannot make a stale table look fresh, nor a fresh one stale: freshness comes
// from CLOCK_MONOTONIC alone, which the collector and the extender share on one host.
//
// Unit level on purpose. A process-level drill would need libfaketime: it fakes CLOCK_MONOTONIC
// too unless told otherwise, and LD_PRELOADing it into the asan build trips ASan's check that its
// runtime comes first. Here the snapshot's wall and monotonic fields are set independently and
// exactly, so each test disagrees the two clocks by hours, far beyond max-age.
namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
namespace bip = boost::interprocess;
namespace http = boost::beast::http;

constexpr std::int64_t kHourNs = 3'600'000'000'000;
constexpr std::int64_t kHourMs = 3'600'000;
constexpr const char* kProbe = R"({"Pod":{},"Nodes":null,"NodeNames":["a","c"]})";
constexpr const char* kNeutral = R"([{"Host":"a","Score":5},{"Host":"c","Score":5}])";
constexpr const char* kReal = R"([{"Host":"a","Score":10},{"Host":"c","Score":0}])";

class ClockJumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
    config_.extender.neutral_score = 5;
    const std::int64_t wall = wall_now_ms();
    writer_.publish(std::vector<TableEntry>{{{.raw = 0.0,
                                              .raw_score = 0,
                                              .node_score = 100,
                                              .sample_ms = wall,
                                              .corrected_raw_score = 0,
                                              .corrected_node_score = 100,
                                              .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                             "a"},
                                            {{.raw = 200.0,
                                              .raw_score = 200,
                                              .node_score = 0,
                                              .sample_ms = wall,
                                              .corrected_raw_score = 200,
                                              .corrected_node_score = 0,
                                              .flags = shm::kEntryHasSeries | shm::kEntryValid},
                                             "c"}},
                    wall);
    shm::CollectorStatus status{};
    status.last_success_wall_ms = wall;
    status.last_success_mono_ns = mono_now_ns();
    status.heartbeat_mono_ns = status.last_success_mono_ns;
    writer_.record_status(status);
    ASSERT_TRUE(attachment_.poll());
  }

  // Rewrites the served snapshot's metadata in place, as a collector with other clocks would have.
  void edit_snapshot(const std::function<void(shm::SnapshotMeta&)>& edit) const {
    bip::shared_memory_object object(bip::open_only, name_.str().c_str(), bip::read_write);
    bip::mapped_region region(object, bip::read_write);
    auto* words = static_cast<shm::Word*>(region.get_address());
    const auto& header = *static_cast<const shm::SegmentHeader*>(region.get_address());
    const auto copy = header.snapshot_seq.load() & 1;
    shm::Word* meta_words = words + writer_.layout().snapshot_offset[copy] / 8;
    shm::SnapshotMeta meta{};
    seqlock::load(meta_words, meta);
    edit(meta);
    seqlock::store(meta_words, meta);
  }

  Response call(http::verb method, std::string_view target, std::string body = {}) {
    return handlers_.handle(method, target, body, attachment_, mono_now_ns());
  }

  netscore::testing::TableName name_{"clock"};
  Config config_;
  SharedState shared_{1};
  Handlers handlers_{config_, shared_, 0};
  ScoreTableWriter writer_{{.name = name_, .capacity = 64}};
  TableAttachment attachment_{{.name = name_}};
};

TEST_F(ClockJumpTest, WallTimeJustNowCannotHideAnOldMonotonicPublish) {
  // As if the wall clock had been set back an hour: every wall field reads "now", but the
  // snapshot was published an hour ago by the monotonic clock.
  edit_snapshot([](shm::SnapshotMeta& meta) {
    meta.published_mono_ns -= kHourNs;
    meta.published_wall_ms = wall_now_ms();
  });
  const Response readyz = call(http::verb::get, "/readyz");
  EXPECT_EQ(readyz.status, 503U);
  EXPECT_THAT(readyz.body, HasSubstr("stale"));
  EXPECT_EQ(call(http::verb::post, "/prioritize", kProbe).body, kNeutral);
  EXPECT_THAT(call(http::verb::get, "/table").body, HasSubstr(R"("state":"stale")"));
}

TEST_F(ClockJumpTest, WallTimeLongAgoCannotMakeAFreshPublishStale) {
  // As if the wall clock had jumped forward a day after the publish.
  edit_snapshot([](shm::SnapshotMeta& meta) { meta.published_wall_ms -= 24 * kHourMs; });
  EXPECT_EQ(call(http::verb::get, "/readyz").status, 200U);
  EXPECT_EQ(call(http::verb::post, "/prioritize", kProbe).body, kReal);
  EXPECT_THAT(call(http::verb::get, "/table").body, HasSubstr(R"("state":"fresh")"));
}

}  // namespace
}  // namespace netscore::extender
