#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/clock.h"
#include "common/table/score_table_writer.h"
#include "extender/http/exchange.h"
#include "extender/http/handlers.h"
#include "extender/views/explain.h"
#include "extender/views/table_html.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace http = boost::beast::http;

class ExplainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
    config_.extender.neutral_score = 5;
    writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
    // raw a=0, b=50, c=200 (and as many bytes/s); cluster node_score a=34, b=95, c=4; "bad"
    // invalid.
    const auto entry = [](std::string name, double raw, std::int64_t node_score, bool valid) {
      const auto score = valid ? static_cast<std::int64_t>(raw) : 0;
      return TableEntry{
          {.raw = raw,
           .raw_score = score,
           .node_score = node_score,
           .sample_ms = 1000,
           .rate = raw,
           .corrected_raw_score = score,
           .corrected_node_score = node_score,
           .flags = shm::kEntryHasSeries | shm::kEntryRateValid | (valid ? shm::kEntryValid : 0U)},
          std::move(name)};
    };
    const std::vector<TableEntry> entries = {entry("a", 0.0, 34, true), entry("b", 50.0, 95, true),
                                             entry("c", 200.0, 4, true),
                                             entry("bad", 1e9, 0, false)};
    writer_->publish(entries, 1000);
    attachment_.emplace(ScoreTableReader::Options{name_, 64});
    ASSERT_TRUE(attachment_->poll());
  }

  Response call(Handlers& h, http::verb method, std::string_view target, std::string body = {},
                std::string_view accept = {}) {
    return h.handle(method, target, body, *attachment_, mono_now_ns(), accept);
  }
  Response get(std::string_view target) { return call(handlers_, http::verb::get, target); }
  Response post(std::string_view verb, std::string_view pod, std::string_view names,
                std::string_view annotations = "{}") {
    return call(handlers_, http::verb::post, verb,
                std::string(R"({"Pod":{"metadata":{)") + std::string(pod) + R"(,"annotations":)" +
                    std::string(annotations) + R"(}},"NodeNames":)" + std::string(names) + "}");
  }
  static rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    EXPECT_FALSE(d.HasParseError()) << body;
    return d;
  }

  netscore::testing::TableName name_{"explain"};
  Config config_;
  SharedState shared_{1, 64, 1024};
  Handlers handlers_{config_, shared_, 0};
  std::optional<ScoreTableWriter> writer_;
  std::optional<TableAttachment> attachment_;
};

constexpr std::string_view kP1 = R"("namespace":"ns1","name":"p1","uid":"uid-1")";

TEST_F(ExplainTest, PrioritizeIsExplainedNodeByNode) {
  ASSERT_EQ(post("/prioritize", kP1, R"(["a","b","c","zz","bad"])").status, 200U);
  const Response r = get("/explain?pod=ns1/p1");
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto doc = parse(r.body);
  const auto& decisions = doc["decisions"];
  ASSERT_EQ(decisions.Size(), 1U);
  const auto& d = decisions[0];
  EXPECT_STREQ(d["verb"].GetString(), "prioritize");
  EXPECT_STREQ(d["table"]["state"].GetString(), "fresh");
  EXPECT_STREQ(d["normalisation"].GetString(), "request");
  EXPECT_STREQ(d["pod"]["uid"].GetString(), "uid-1");
  EXPECT_EQ(d["nodes_asked"].GetUint(), 5U);
  // request mode, max raw_score 200: a 100 → 10, b 100-25=75 → 8, c 0 → 0; zz unknown and bad
  // invalid get no 0..100 score and the neutral 5.
  struct Want {
    const char* name;
    bool found;
    double raw;
    int score;  // -1: null
    int ext;
  };
  const Want want[] = {{"a", true, 0, 100, 10},
                       {"b", true, 50, 75, 8},
                       {"c", true, 200, 0, 0},
                       {"zz", false, 0, -1, 5},
                       {"bad", true, 1e9, -1, 5}};
  const auto& nodes = d["nodes"];
  ASSERT_EQ(nodes.Size(), std::size(want));
  for (rapidjson::SizeType i = 0; i < std::size(want); ++i) {
    SCOPED_TRACE(want[i].name);
    EXPECT_STREQ(nodes[i]["name"].GetString(), want[i].name);
    EXPECT_EQ(nodes[i]["found"].GetBool(), want[i].found);
    EXPECT_EQ(nodes[i]["seed_raw"].GetDouble(), want[i].raw);
    EXPECT_EQ(nodes[i]["correction"].GetDouble(), 0.0);
    if (want[i].score < 0) {
      EXPECT_TRUE(nodes[i]["score"].IsNull());
    } else {
      EXPECT_EQ(nodes[i]["score"].GetInt(), want[i].score);
    }
    EXPECT_EQ(nodes[i]["extender_score"].GetInt(), want[i].ext);
    EXPECT_TRUE(nodes[i]["filter"].IsNull());
  }
}

TEST_F(ExplainTest, ClusterModeRecordsTheClusterScore) {
  config_.extender.normalisation = Normalisation::cluster;
  post("/prioritize", kP1, R"(["a","b"])");
  const auto doc = parse(get("/explain?pod=ns1/p1").body);
  const auto& nodes = doc["decisions"][0]["nodes"];
  EXPECT_EQ(nodes[0]["score"].GetInt(), 34);
  EXPECT_EQ(nodes[0]["extender_score"].GetInt(), 3);
  EXPECT_EQ(nodes[1]["score"].GetInt(), 95);
  EXPECT_EQ(nodes[1]["extender_score"].GetInt(), 10);
}

TEST_F(ExplainTest, FilterVerdictsAndReasonsNewestFirst) {
  post("/prioritize", kP1, R"(["a","c"])");
  post("/filter", kP1, R"(["a","b","c"])", R"({"netscore.io/max-receive-rate":"100"})");
  const auto doc = parse(get("/explain?uid=uid-1").body);
  const auto& decisions = doc["decisions"];
  ASSERT_EQ(decisions.Size(), 2U);
  EXPECT_STREQ(decisions[0]["verb"].GetString(), "filter");
  EXPECT_STREQ(decisions[1]["verb"].GetString(), "prioritize");
  std::map<std::string, std::pair<std::string, std::string>> verdicts;
  for (const auto& n : decisions[0]["nodes"].GetArray()) {
    verdicts[n["name"].GetString()] = {n["filter"].GetString(), n["reason"].GetString()};
  }
  ASSERT_EQ(verdicts.size(), 3U);
  EXPECT_EQ(verdicts["a"].first, "passed");
  EXPECT_EQ(verdicts["b"].first, "passed");
  EXPECT_EQ(verdicts["c"].first, "failed");
  const auto& failed = decisions[0]["nodes"][0];
  EXPECT_STREQ(failed["name"].GetString(), "c");  // failures first
  // The reason is the same for every node (the scheduler groups it); the node's own figure is here.
  EXPECT_EQ(failed["rate"].GetDouble(), 200.0);
  EXPECT_THAT(verdicts["c"].second, HasSubstr("100"));
  EXPECT_THAT(verdicts["c"].second, Not(HasSubstr("200")));
}

TEST_F(ExplainTest, MalformedAnnotationFailsEveryNodeWithTheReason) {
  post("/filter", kP1, R"(["a","b"])", R"({"netscore.io/max-receive-rate":"lots"})");
  const auto doc = parse(get("/explain?pod=ns1/p1").body);
  const auto& d = doc["decisions"][0];
  ASSERT_EQ(d["nodes"].Size(), 2U);
  for (const auto& n : d["nodes"].GetArray()) {
    EXPECT_STREQ(n["filter"].GetString(), "failed");
    EXPECT_THAT(n["reason"].GetString(), HasSubstr("is not bytes per second"));
  }
}

TEST_F(ExplainTest, TextFormatAndQueryErrors) {
  post("/prioritize", kP1, R"(["a","b"])");
  const Response text = get("/explain?pod=ns1%2Fp1&format=text&limit=1");
  EXPECT_EQ(text.status, 200U);
  EXPECT_EQ(text.content_type, "text/plain; charset=utf-8");
  EXPECT_THAT(text.body, HasSubstr("prioritize ns1/p1 table=fresh"));
  EXPECT_THAT(text.body, HasSubstr("SEED_RAW"));

  const Response unknown = get("/explain?pod=ns1/p2");
  EXPECT_EQ(unknown.status, 404U);
  EXPECT_EQ(unknown.content_type, "application/json");
  EXPECT_THAT(unknown.body, HasSubstr(R"({"error":"no decision recorded for pod ns1/p2)"));
  for (std::string_view bad :
       {"/explain", "/explain?pod=p1", "/explain?pod=ns1/", "/explain?pod=ns1/p1&limit=0",
        "/explain?pod=ns1/p1&limit=101", "/explain?pod=ns1/p1&x=1", "/explain?pod=%zz",
        "/explain?pod=ns1/p1&format=html", "/explain?uid="}) {
    const Response r = get(bad);
    EXPECT_EQ(r.status, 400U) << bad;
    EXPECT_THAT(r.body, HasSubstr(R"({"error":)")) << bad;
  }
  EXPECT_EQ(call(handlers_, http::verb::post, "/explain?pod=ns1/p1").status, 405U);
}

TEST_F(ExplainTest, ANodesRecentPlacementsAreServedFromTheTable) {
  shm::PlacementRecord record{};
  shm::set_placement_names(record, "a", "ns1/p1");
  record.receive_priced_by = shm::kEntryPricedByAnnotation;
  record.receive_rate = 250;
  record.transmit_priced_by = shm::kEntryPricedByAverage;
  record.transmit_rate = -1;
  writer_->record_placement(record);
  // Served whether or not decisions are kept: the table holds them.
  SharedState off{1, 0, 0};
  Handlers h{config_, off, 0};
  const Response json = call(h, http::verb::get, "/explain?node=a");
  EXPECT_EQ(json.status, 200U);
  EXPECT_EQ(json.content_type, "application/json");
  const auto d = parse(json.body);
  EXPECT_STREQ(d["node"].GetString(), "a");
  ASSERT_EQ(d["recent_pods"].Size(), 1U);
  EXPECT_STREQ(d["recent_pods"][0]["receive"]["priced_by"].GetString(), "annotation");
  const Response text = call(h, http::verb::get, "/explain?node=a&format=text");
  EXPECT_EQ(text.content_type, "text/plain; charset=utf-8");
  EXPECT_THAT(text.body, HasSubstr("250 annotation"));
  EXPECT_EQ(parse(get("/explain?node=b").body)["recent_pods"].Size(), 0U);
  for (std::string_view bad :
       {"/explain?node=", "/explain?node=a&pod=ns1/p1", "/explain?uid=u&node=a"}) {
    const Response r = get(bad);
    EXPECT_EQ(r.status, 400U) << bad;
  }
}

TEST_F(ExplainTest, DisabledLogAnswers404) {
  SharedState off{1, 0, 0};
  Handlers h{config_, off, 0};
  std::string body = R"({"Pod":{"metadata":{"namespace":"ns1","name":"p1"}},"NodeNames":["a"]})";
  EXPECT_EQ(h.handle(http::verb::post, "/prioritize", body, *attachment_, mono_now_ns()).status,
            200U);
  const Response r = call(h, http::verb::get, "/explain?pod=ns1/p1");
  EXPECT_EQ(r.status, 404U);
  EXPECT_THAT(r.body, HasSubstr("the decision log is off"));
}

TEST_F(ExplainTest, ReadOnlyListenerServesOnlyTheOperatorEndpoints) {
  Handlers metrics{config_, shared_, 0, true};
  for (std::string_view path : {"/metrics", "/healthz", "/readyz", "/table"}) {
    EXPECT_EQ(call(metrics, http::verb::get, path).status, 200U) << path;
  }
  EXPECT_EQ(
      call(metrics, http::verb::post, "/prioritize", R"({"Pod":{},"NodeNames":["a"]})").status,
      404U);
  EXPECT_EQ(call(metrics, http::verb::post, "/filter", R"({"Pod":{},"NodeNames":["a"]})").status,
            404U);
  const Response explain = call(metrics, http::verb::get, "/explain?pod=ns1/p1");
  EXPECT_EQ(explain.status, 404U);
  EXPECT_THAT(explain.body, HasSubstr("NETSCORE_METRICS_LISTEN"));
}

TEST_F(ExplainTest, TableAsHtmlEscapesEverythingUnderAStrictPolicy) {
  constexpr std::uint32_t kValid = shm::kEntryHasSeries | shm::kEntryValid;
  const std::vector<TableEntry> hostile = {
      {{.raw = 10.0, .raw_score = 10, .node_score = 90, .sample_ms = 1000, .flags = kValid},
       "<script>alert(1)</script>"},
      {{.raw = 20.0, .raw_score = 20, .node_score = 80, .sample_ms = 1000, .flags = kValid},
       "a\"onmouseover='x'&"}};
  writer_->publish(hostile, 2000);
  shm::CollectorStatus status{};
  status.consecutive_failures = 1;
  std::snprintf(status.last_error, sizeof status.last_error, "%s", "<b>boom</b>");
  status.last_success_mono_ns = mono_now_ns();
  writer_->record_status(status);
  shared_.missing.add("<i>ghost</i>");

  const Response html = call(handlers_, http::verb::get, "/table?format=html&refresh=15");
  ASSERT_EQ(html.status, 200U);
  EXPECT_EQ(html.content_type, "text/html; charset=utf-8");
  EXPECT_THAT(html.body, Not(HasSubstr("<script")));
  EXPECT_THAT(html.body, Not(HasSubstr("<b>")));
  EXPECT_THAT(html.body, Not(HasSubstr("<i>")));
  EXPECT_THAT(html.body, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html.body, HasSubstr("data-node=\"a&quot;onmouseover=&#39;x&#39;&amp;\""));
  EXPECT_THAT(html.body, HasSubstr("&lt;b&gt;boom&lt;/b&gt;"));
  EXPECT_THAT(html.body, HasSubstr("&lt;i&gt;ghost&lt;/i&gt;"));
  EXPECT_THAT(html.body, HasSubstr(R"(data-state="fresh")"));
  EXPECT_THAT(html.body, HasSubstr(R"(<meta http-equiv="refresh" content="15">)"));
  // Best score first: 90 before 80.
  EXPECT_LT(html.body.find("alert(1)"), html.body.find("onmouseover"));

  // A browser's Accept header gets HTML, an explicit format wins, curl's */* gets JSON.
  EXPECT_EQ(call(handlers_, http::verb::get, "/table", {}, "text/html,application/xhtml+xml")
                .content_type,
            "text/html; charset=utf-8");
  EXPECT_EQ(call(handlers_, http::verb::get, "/table?format=json", {}, "text/html").content_type,
            "application/json");
  EXPECT_EQ(call(handlers_, http::verb::get, "/table", {}, "*/*").content_type, "application/json");
  EXPECT_EQ(call(handlers_, http::verb::get, "/table?format=html&refresh=0").status, 400U);

  HttpResponse out;
  build_response({html, 11, false}, out);
  EXPECT_EQ(std::string(out["Content-Security-Policy"]), std::string(kHtmlCsp));
  EXPECT_THAT(std::string(kHtmlCsp), HasSubstr("default-src 'none'"));
  HttpResponse json;
  build_response({call(handlers_, http::verb::get, "/table"), 11, false}, json);
  EXPECT_TRUE(json["Content-Security-Policy"].empty());
}

TEST_F(ExplainTest, StateBannerFollowsTheTable) {
  SharedState other{1};
  Handlers h{config_, other, 0};
  TableAttachment detached({"netscore-explain-no-such-table", 64});
  std::string body;
  const Response r = h.handle(http::verb::get, "/table?format=html", body, detached, mono_now_ns());
  EXPECT_THAT(r.body, HasSubstr(R"(data-state="detached")"));
  EXPECT_THAT(r.body, HasSubstr(R"(id="no-nodes")"));
  const Response stale = h.handle(http::verb::get, "/table?format=html", body, *attachment_,
                                  mono_now_ns() + 120'000'000'000);
  EXPECT_THAT(stale.body, HasSubstr(R"(data-state="stale")"));
}

TEST(ExplainRenderTest, NodesSayWhatTheyWereScoredOn) {
  Decision d;
  d.header.verb = Verb::prioritize;
  d.header.freshness = Freshness::fresh;
  NodeDecision util;
  util.name.set("util");
  util.found = util.valid = util.utilisation = true;
  util.scored = 0.25;
  util.speed = 1.25e8;
  NodeDecision bytes;
  bytes.name.set("bytes");
  bytes.found = bytes.valid = true;
  bytes.scored = 1200;
  NodeDecision unknown;
  unknown.name.set("zz");
  d.nodes = {util, bytes, unknown};
  ExplainQuery query;
  query.pod_namespace = "ns1";
  query.pod_name = "p1";

  const std::string json = render_explain_json(query, std::span(&d, 1));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  const auto& nodes = doc["decisions"][0]["nodes"];
  ASSERT_EQ(nodes.Size(), 3U);
  EXPECT_STREQ(nodes[0]["basis"].GetString(), "utilisation");
  EXPECT_EQ(nodes[0]["scored"].GetDouble(), 0.25);
  EXPECT_EQ(nodes[0]["speed"].GetDouble(), 1.25e8);
  EXPECT_STREQ(nodes[1]["basis"].GetString(), "raw");
  EXPECT_EQ(nodes[1]["scored"].GetDouble(), 1200.0);
  EXPECT_TRUE(nodes[1]["speed"].IsNull());
  EXPECT_TRUE(nodes[2]["basis"].IsNull());
  EXPECT_TRUE(nodes[2]["scored"].IsNull());
  EXPECT_TRUE(nodes[2]["speed"].IsNull());

  const std::string text = render_explain_text(query, std::span(&d, 1));
  EXPECT_THAT(text, HasSubstr("BASIS                SCORED       SPEED_B/S"));
  EXPECT_THAT(text, HasSubstr("utilisation        0.250000       125000000"));
  EXPECT_THAT(text, HasSubstr("raw                    1200               -"));
}

}  // namespace
}  // namespace netscore::extender
