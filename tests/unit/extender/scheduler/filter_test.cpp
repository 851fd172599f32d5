#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/clock.h"
#include "common/table/score_table_writer.h"
#include "extender/http/handlers.h"
#include "extender/scheduler/filter.h"
#include "tests/support/table_name.h"

namespace netscore::extender {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace http = boost::beast::http;

constexpr std::uint32_t kKnown =
    shm::kEntryHasSeries | shm::kEntryInCluster | shm::kEntryLabelsKnown;
constexpr std::string_view kSpaceReason =
    "netscore: pods annotated type=space need nodes labelled kubernetes.io/role=edge";

// What the scheduler reads from a filter answer.
struct Answer {
  std::vector<std::string> passed;
  std::map<std::string, std::string> failed;  // FailedAndUnresolvableNodes
  std::size_t failed_resolvable = 0;          // FailedNodes
  std::string error;
};

class FilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
    config_.label_rules = parse_label_rules("type=space:kubernetes.io/role=edge;tier=db:disk=ssd");
  }

  // Rates in bytes/s; rule_mask bit 0: role=edge, bit 1: disk=ssd. "nolabels" has no
  // kEntryLabelsKnown, "norate" no kEntryRateValid.
  void publish(std::uint32_t snapshot_flags = shm::kSnapshotClusterSynced,
               std::uint64_t rules_hash = 0) {
    const auto entry = [](std::string name, double rate, std::uint32_t flags, std::uint64_t mask) {
      return TableEntry{{.raw = 1,
                         .raw_score = 1,
                         .node_score = 50,
                         .sample_ms = 1000,
                         .rate = rate,
                         .corrected_raw_score = 1,
                         .corrected_node_score = 50,
                         .flags = flags | shm::kEntryValid,
                         .rule_mask = mask},
                        std::move(name)};
    };
    const std::vector<TableEntry> entries = {
        entry("core", 100, kKnown | shm::kEntryRateValid, 0),
        entry("edge", 5000, kKnown | shm::kEntryRateValid, 1),
        entry("edge-ssd", 7000, kKnown | shm::kEntryRateValid, 3),
        entry("nolabels", 100, shm::kEntryHasSeries | shm::kEntryRateValid, 0),
        entry("norate", 0, kKnown, 1)};
    writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64, .mode = 0600});
    writer_->publish(
        entries,
        SnapshotInfo{.eval_time_ms = 1000,
                     .flags = snapshot_flags,
                     .rules_hash = rules_hash != 0 ? rules_hash : config_.label_rules.hash});
    attachment_.poll();
    ASSERT_NE(attachment_.reader(), nullptr) << attachment_.last_error();
  }

  Answer filter(const std::string& annotations, const std::string& nodes_json,
                std::int64_t now = mono_now_ns()) {
    std::string body =
        R"({"Pod":{"metadata":{"annotations":)" + annotations + "}}," + nodes_json + "}";
    const Response r = handlers_.handle(http::verb::post, "/filter", body, attachment_, now);
    EXPECT_EQ(r.status, 200U) << r.body;
    rapidjson::Document doc;
    doc.Parse(r.body.data(), r.body.size());
    Answer a;
    if (doc.HasParseError() || !doc.IsObject()) {
      ADD_FAILURE() << r.body;
      return a;
    }
    if (doc["NodeNames"].IsArray()) {
      for (const auto& n : doc["NodeNames"].GetArray()) a.passed.emplace_back(n.GetString());
    } else {
      for (const auto& item : doc["Nodes"]["items"].GetArray())
        a.passed.emplace_back(item["metadata"]["name"].GetString());
    }
    for (const auto& m : doc["FailedAndUnresolvableNodes"].GetObject())
      a.failed[m.name.GetString()] = m.value.GetString();
    a.failed_resolvable = doc["FailedNodes"].MemberCount();
    a.error = doc["Error"].GetString();
    return a;
  }
  Answer names(const std::string& annotations, std::int64_t now = mono_now_ns()) {
    return filter(annotations,
                  R"("NodeNames":["core","edge","edge-ssd","nolabels","norate","absent"])", now);
  }

  netscore::testing::TableName name_{"filter"};
  Config config_;
  SharedState shared_{1};
  Handlers handlers_{config_, shared_, 0};
  std::optional<ScoreTableWriter> writer_;
  TableAttachment attachment_{{.name = name_, .max_retries = 64}};
};

TEST_F(FilterTest, PodsWithoutAnnotationsPassEveryNodeEvenWithoutATable) {
  const Answer a = names(R"({"type":"ground","other":"1"})");
  EXPECT_THAT(a.passed, ElementsAre("core", "edge", "edge-ssd", "nolabels", "norate", "absent"));
  EXPECT_TRUE(a.failed.empty());
  EXPECT_EQ(a.error, "");
}

TEST_F(FilterTest, RateCeilingFailsFasterNodesWithOneSharedReason) {
  publish();
  const Answer a = names(R"({"netscore.io/max-receive-rate":"4k"})");
  // Nodes without a valid rate and nodes the table lacks pass: no data is not evidence of traffic.
  EXPECT_THAT(a.passed, ElementsAre("core", "nolabels", "norate", "absent"));
  ASSERT_EQ(a.failed.size(), 2U);
  EXPECT_EQ(a.failed.at("edge"),
            "netscore: node receive rate above the pod's netscore.io/max-receive-rate of 4k");
  EXPECT_EQ(a.failed.at("edge-ssd"), a.failed.at("edge"));
  EXPECT_EQ(a.failed_resolvable, 0U);
  EXPECT_EQ(a.error, "");
  EXPECT_THAT(names(R"({"netscore.io/max-receive-rate":"7000"})").passed,
              ElementsAre("core", "edge", "edge-ssd", "nolabels", "norate", "absent"));
}

TEST_F(FilterTest, MalformedAnnotationFailsEveryNodeWithAReasonTheSchedulerHonours) {
  publish();
  const Answer a = names(R"({"netscore.io/max-receive-rate":"10%fast"})");
  EXPECT_TRUE(a.passed.empty());
  ASSERT_EQ(a.failed.size(), 6U);
  EXPECT_EQ(
      a.failed.at("core"),
      R"(netscore: annotation netscore.io/max-receive-rate="10?fast" is not bytes per second (e.g. 2000000 or 10Mi))");
  EXPECT_EQ(a.error, "");  // an Error would be skipped by an ignorable extender
}

TEST_F(FilterTest, RemovedByteCeilingNamesItsReplacement) {
  publish();
  const Answer a = names(R"({"netscore.io/max-receive-bytes":"600"})");
  EXPECT_TRUE(a.passed.empty());
  EXPECT_EQ(a.failed.at("edge"),
            "netscore: annotation netscore.io/max-receive-bytes is no longer supported; use "
            "netscore.io/max-receive-rate (bytes per second)");
}

TEST_F(FilterTest, StaleTableFollowsThePolicyWithoutAnError) {
  publish();
  const std::int64_t stale = mono_now_ns() + 61'000'000'000;
  EXPECT_EQ(names(R"({"netscore.io/max-receive-rate":"1"})", stale).passed.size(), 6U);
  config_.extender.stale_policy = StalePolicy::fail_closed;
  const Answer closed = names(R"({"netscore.io/max-receive-rate":"1"})", stale);
  EXPECT_TRUE(closed.passed.empty());
  EXPECT_EQ(closed.failed.at("core"),
            "netscore: score table stale, cannot check netscore.io/max-receive-rate "
            "(NETSCORE_STALE_POLICY=closed)");
  EXPECT_EQ(closed.error, "");
  // Pods that ask for nothing are never held back by the table's state.
  EXPECT_EQ(names(R"({})", stale).passed.size(), 6U);
}

// Prioritize's lookup serves its filter too: no table exists here, the rows given decide.
TEST_F(FilterTest, ALookupAlreadyMadeDecidesWithoutReadingTheTable) {
  std::string body = R"({"Pod":{"metadata":{"annotations":{"netscore.io/max-receive-rate":"4k"}}},)"
                     R"("NodeNames":["slow","fast"]})";
  ExtenderArgs args;
  ASSERT_FALSE(parse_extender_args(body, args).has_value());
  const Lookup lookup{.freshness = Freshness::fresh};
  const std::vector<NodeScore> found = {
      {{.rate = 100, .flags = shm::kEntryValid | shm::kEntryRateValid}, true},
      {{.rate = 5000, .flags = shm::kEntryValid | shm::kEntryRateValid}, true}};
  Filter filter(config_);
  FilterOutcome outcome;
  filter.run(args, lookup, found, outcome);
  EXPECT_THAT(outcome.passed, ElementsAre(0U));
  ASSERT_EQ(outcome.failed.size(), 1U);
  EXPECT_EQ(outcome.failed[0].index, 1U);
  EXPECT_EQ(outcome.failed[0].reason,
            "netscore: node receive rate above the pod's netscore.io/max-receive-rate of 4k");
  EXPECT_TRUE(outcome.looked_up);
  EXPECT_EQ(outcome.freshness, Freshness::fresh);
  EXPECT_EQ(outcome.found.size(), 2U);
}

TEST_F(FilterTest, LabelRulesFromTheTableWhenOnlyNamesAreSent) {
  publish();
  const Answer space = names(R"({"type":"space"})");
  EXPECT_THAT(space.passed, ElementsAre("edge", "edge-ssd", "nolabels", "norate", "absent"));
  ASSERT_EQ(space.failed.size(), 1U);
  EXPECT_EQ(space.failed.at("core"), kSpaceReason);
  // Both rules: the first unmet one is the reason.
  const Answer both = names(R"({"type":"space","tier":"db"})");
  EXPECT_THAT(both.passed, ElementsAre("edge-ssd", "nolabels", "absent"));
  EXPECT_EQ(both.failed.at("core"), kSpaceReason);
  EXPECT_EQ(both.failed.at("edge"),
            "netscore: pods annotated tier=db need nodes labelled disk=ssd");
  EXPECT_EQ(both.failed.at("norate"), both.failed.at("edge"));
  // Unknown labels (not watched yet, or not in the table) fail only with the closed policy.
  config_.extender.stale_policy = StalePolicy::fail_closed;
  const Answer closed = names(R"({"type":"space"})");
  EXPECT_THAT(closed.passed, ElementsAre("edge", "edge-ssd", "norate"));
  EXPECT_EQ(closed.failed.at("nolabels"),
            "netscore: node labels unknown to netscore (NETSCORE_STALE_POLICY=closed)");
  EXPECT_EQ(closed.failed.at("absent"), closed.failed.at("nolabels"));
}

TEST_F(FilterTest, MasksFromOtherRulesOrAnUnsyncedWatchCountAsUnknown) {
  publish(shm::kSnapshotClusterSynced,
          parse_label_rules("type=space:kubernetes.io/role=core").hash);
  EXPECT_EQ(names(R"({"type":"space"})").passed.size(), 6U);
  config_.extender.stale_policy = StalePolicy::fail_closed;
  EXPECT_EQ(names(R"({"type":"space"})").failed.size(), 6U);
  publish(0);
  EXPECT_EQ(names(R"({"type":"space"})").failed.size(), 6U);
  config_.extender.stale_policy = StalePolicy::fail_open;
  EXPECT_EQ(names(R"({"type":"space"})").passed.size(), 6U);
}

TEST_F(FilterTest, LabelRulesFromTheRequestsNodeObjects) {
  // No table at all: the labels in the request are all the rules need.
  const std::string nodes =
      R"("Nodes":{"metadata":{},"items":[{"metadata":{"name":"e","labels":{"kubernetes.io/role":"edge","disk":"ssd"}}},)"
      R"({"metadata":{"name":"c","labels":{"kubernetes.io/role":"core"}}},{"metadata":{"name":"n"}},)"
      R"({"metadata":{"labels":{"kubernetes.io/role":"core","kubernetes.io/role":"edge"},"name":"d"}}]},"NodeNames":null)";
  const Answer a = filter(R"({"type":"space"})", nodes);
  // "d": a repeated label key keeps its last value, as Go decodes it.
  EXPECT_THAT(a.passed, ElementsAre("e", "d"));
  EXPECT_EQ(a.failed.at("c"), kSpaceReason);
  EXPECT_EQ(a.failed.at("n"), kSpaceReason);
  EXPECT_THAT(filter(R"({"type":"space","tier":"db"})", nodes).passed, ElementsAre("e"));
}

TEST_F(FilterTest, ManyFailingNodesShareOneReasonSoTheSchedulerMessageStaysShort) {
  std::vector<TableEntry> entries;
  std::string list;
  for (int i = 0; i < 100; ++i) {
    const std::string name = "node-" + std::to_string(i);
    entries.push_back({{.raw = 1,
                        .raw_score = 1,
                        .node_score = 1,
                        .sample_ms = 1,
                        .rate = 1000.0 + i,
                        .corrected_raw_score = 1,
                        .corrected_node_score = 1,
                        .flags = kKnown | shm::kEntryRateValid | shm::kEntryValid},
                       name});
    list += (i == 0 ? "" : ",") + ("\"" + name + "\"");
  }
  writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 128, .mode = 0600});
  writer_->publish(entries, SnapshotInfo{.eval_time_ms = 1,
                                         .flags = shm::kSnapshotClusterSynced,
                                         .rules_hash = config_.label_rules.hash});
  ASSERT_TRUE(attachment_.poll());
  const Answer a = filter(R"({"netscore.io/max-receive-rate":"999","type":"space"})",
                          R"("NodeNames":[)" + list + "]");
  ASSERT_EQ(a.failed.size(), 100U);
  std::set<std::string> distinct;
  for (const auto& [node, reason] : a.failed) distinct.insert(reason);
  EXPECT_THAT(distinct, ElementsAre(std::string(kSpaceReason)));
}

// Scheduler configurations without the filter verb: prioritize is the only call a pod gets.
class PrioritizeWithoutFilterTest : public FilterTest {
 protected:
  void SetUp() override {
    FilterTest::SetUp();
    config_.extender.normalisation =
        Normalisation::cluster;  // every published node_score is 50: answer 5
    config_.extender.neutral_score = 3;
  }

  std::map<std::string, std::int64_t> prioritize(Handlers& handlers,
                                                 const std::string& annotations) {
    std::string body = R"({"Pod":{"metadata":{"namespace":"shop","name":"web","annotations":)" +
                       annotations + R"(}},"NodeNames":["core","edge","edge-ssd","absent"]})";
    const Response r =
        handlers.handle(http::verb::post, "/prioritize", body, attachment_, mono_now_ns());
    EXPECT_EQ(r.status, 200U) << r.body;
    rapidjson::Document doc;
    doc.Parse(r.body.data(), r.body.size());
    std::map<std::string, std::int64_t> scores;
    if (doc.HasParseError() || !doc.IsArray()) {
      ADD_FAILURE() << r.body;
      return scores;
    }
    for (const auto& h : doc.GetArray()) scores[h["Host"].GetString()] = h["Score"].GetInt64();
    return scores;
  }

  std::string metrics(Handlers& handlers) {
    std::string body;
    return handlers.handle(http::verb::get, "/metrics", body, attachment_, mono_now_ns()).body;
  }
};

TEST_F(PrioritizeWithoutFilterTest, NodesTheFilterWouldRefuseScoreZeroAndThePodIsCounted) {
  publish();
  using Scores = std::map<std::string, std::int64_t>;
  EXPECT_EQ(prioritize(handlers_, R"({"netscore.io/max-receive-rate":"4k"})"),
            (Scores{{"core", 5}, {"edge", 0}, {"edge-ssd", 0}, {"absent", 3}}));
  EXPECT_EQ(prioritize(handlers_, R"({"type":"space"})"),
            (Scores{{"core", 0}, {"edge", 5}, {"edge-ssd", 5}, {"absent", 3}}));
  EXPECT_EQ(prioritize(handlers_, R"({"netscore.io/max-receive-rate":"abc"})"),
            (Scores{{"core", 0}, {"edge", 0}, {"edge-ssd", 0}, {"absent", 0}}));
  EXPECT_EQ(prioritize(handlers_, R"({"other":"1"})"),
            (Scores{{"core", 5}, {"edge", 5}, {"edge-ssd", 5}, {"absent", 3}}));
  EXPECT_THAT(metrics(handlers_),
              HasSubstr("\nnetscore_extender_constraints_without_filter_total 3\n"));
}

TEST_F(PrioritizeWithoutFilterTest, OnceTheSchedulerCallsTheFilterPrioritizeLeavesRefusalsToIt) {
  publish();
  names(R"({"other":"1"})");
  using Scores = std::map<std::string, std::int64_t>;
  EXPECT_EQ(prioritize(handlers_, R"({"netscore.io/max-receive-rate":"4k"})"),
            (Scores{{"core", 5}, {"edge", 5}, {"edge-ssd", 5}, {"absent", 3}}));
  EXPECT_THAT(metrics(handlers_),
              HasSubstr("\nnetscore_extender_constraints_without_filter_total 0\n"));
}

TEST_F(PrioritizeWithoutFilterTest, ExplainShowsWhyANodeScoredZero) {
  publish();
  SharedState shared(1, 8, 64);
  Handlers handlers(config_, shared, 0);
  prioritize(handlers, R"({"netscore.io/max-receive-rate":"4k"})");
  std::string body;
  const Response r = handlers.handle(http::verb::get, "/explain?pod=shop/web&format=text", body,
                                     attachment_, mono_now_ns());
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_THAT(r.body,
              HasSubstr("node receive rate above the pod's netscore.io/max-receive-rate of 4k"));
  EXPECT_THAT(metrics(handlers),
              HasSubstr("\nnetscore_extender_constraints_without_filter_total 1\n"));
}

}  // namespace
}  // namespace netscore::extender

// The filter's transmit-rate and utilisation ceilings, over a table with link figures.
namespace netscore::extender {
namespace {

using ::testing::ElementsAre;

constexpr std::uint32_t kMeasured = shm::kEntryValid | shm::kEntryHasSeries | shm::kEntryRateValid |
                                    shm::kEntryTransmitRateValid | shm::kEntrySpeedMeasured;

struct Result {
  std::vector<std::string> passed;
  std::map<std::string, std::string> failed;
};

class FilterLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.shm.name = name_;
    config_.max_age = {std::chrono::seconds(60), "1m"};
  }

  // Speeds 1000 B/s; rates in B/s, so the utilisations are rate / 1000:
  //   rx-busy    rx 0.9, tx 0.1     tx-busy  rx 0.1, tx 0.9     calm  rx 0.5, tx 0.5
  //   nospeed    rx 900, tx 900 B/s, no speed (a device said -1)
  void publish(Direction direction) {
    const auto entry = [](std::string name, double rx, double tx, std::uint32_t flags,
                          double speed) {
      return TableEntry{{.raw = 1,
                         .raw_score = 1,
                         .node_score = 50,
                         .sample_ms = 1000,
                         .rate = rx,
                         .flags = flags,
                         .transmit_rate = tx,
                         .speed = speed},
                        std::move(name)};
    };
    const std::vector<TableEntry> entries = {
        entry("rx-busy", 900, 100, kMeasured, 1000), entry("tx-busy", 100, 900, kMeasured, 1000),
        entry("calm", 500, 500, kMeasured, 1000),
        entry("nospeed", 900, 900,
              (kMeasured & ~shm::kEntrySpeedMeasured) | shm::kEntrySpeedUnusable, 0)};
    if (!writer_) writer_.emplace(ScoreTableWriter::Options{.name = name_, .capacity = 64});
    writer_->publish(entries, SnapshotInfo{.eval_time_ms = 1000, .direction = direction});
    attachment_.poll();
    ASSERT_NE(attachment_.reader(), nullptr) << attachment_.last_error();
  }

  Result run(std::string_view key, std::string_view value, std::int64_t now = mono_now_ns()) {
    static constexpr std::string_view kNames[] = {"rx-busy", "tx-busy", "calm", "nospeed",
                                                  "absent"};
    ExtenderArgs args;
    for (const auto name : kNames) {
      args.names.push_back(name);
      args.name_hashes.push_back(shm::name_hash(name));
    }
    args.pod_annotations = {{key, value}};
    Filter filter(config_);
    FilterOutcome outcome;
    filter.run(args, attachment_.reader(), now, outcome);
    Result r;
    for (const auto i : outcome.passed) r.passed.emplace_back(args.names[i]);
    for (const auto& f : outcome.failed) r.failed[std::string(args.names[f.index])] = f.reason;
    return r;
  }

  netscore::testing::TableName name_{"filter-link"};
  Config config_;
  std::optional<ScoreTableWriter> writer_;
  TableAttachment attachment_{{.name = name_, .max_retries = 64}};
};

TEST_F(FilterLinkTest, TransmitRateCeilingComparesTheTransmitRate) {
  publish(Direction::receive);
  const Result r = run("netscore.io/max-transmit-rate", "800");
  // nospeed's transmit rate (900) is above too: the rate needs no speed.
  EXPECT_THAT(r.passed, ElementsAre("rx-busy", "calm", "absent"));
  ASSERT_EQ(r.failed.size(), 2U);
  EXPECT_EQ(r.failed.at("tx-busy"),
            "netscore: node transmit rate above the pod's netscore.io/max-transmit-rate of 800");
  EXPECT_EQ(r.failed.at("nospeed"), r.failed.at("tx-busy"));
}

TEST_F(FilterLinkTest, MalformedTransmitRateFailsEveryNode) {
  publish(Direction::receive);
  const Result r = run("netscore.io/max-transmit-rate", "fast");
  EXPECT_TRUE(r.passed.empty());
  EXPECT_EQ(r.failed.at("calm"),
            "netscore: annotation netscore.io/max-transmit-rate=\"fast\" is not bytes per second "
            "(e.g. 2000000 or 10Mi)");
}

TEST_F(FilterLinkTest, UtilisationInTheSnapshotsDirection) {
  publish(Direction::receive);
  Result r = run("netscore.io/max-utilisation", "0.8");
  // nospeed cannot be checked and passes (NETSCORE_STALE_POLICY=open); absent is not in the table.
  EXPECT_THAT(r.passed, ElementsAre("tx-busy", "calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.at("rx-busy"),
            "netscore: node receive link utilisation above the pod's netscore.io/max-utilisation "
            "of 0.8");

  publish(Direction::transmit);
  r = run("netscore.io/max-utilisation", "0.8");
  EXPECT_THAT(r.passed, ElementsAre("rx-busy", "calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.at("tx-busy"),
            "netscore: node transmit link utilisation above the pod's "
            "netscore.io/max-utilisation of 0.8");

  publish(Direction::max);
  r = run("netscore.io/max-utilisation", "0.8");
  EXPECT_THAT(r.passed, ElementsAre("calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.size(), 2U);
  EXPECT_EQ(r.failed.at("rx-busy"),
            "netscore: node max-direction link utilisation above the pod's "
            "netscore.io/max-utilisation of 0.8");
}

TEST_F(FilterLinkTest, UtilisationAsAPercentAndTheLimitIsInclusive) {
  publish(Direction::max);
  // 50%: calm sits exactly at 0.5 (500 / 1000) and passes.
  const Result r = run("netscore.io/max-utilisation", "50%");
  EXPECT_THAT(r.passed, ElementsAre("calm", "nospeed", "absent"));
  EXPECT_EQ(r.failed.at("tx-busy"),
            "netscore: node max-direction link utilisation above the pod's "
            "netscore.io/max-utilisation of 0.5");
}

TEST_F(FilterLinkTest, NodeWithoutASpeedFollowsTheStalePolicy) {
  publish(Direction::receive);
  config_.extender.stale_policy = StalePolicy::fail_closed;
  const Result r = run("netscore.io/max-utilisation", "95%");
  EXPECT_THAT(r.passed, ElementsAre("rx-busy", "tx-busy", "calm", "absent"));
  EXPECT_EQ(r.failed.at("nospeed"),
            "netscore: node link speed or rate unknown, cannot check netscore.io/max-utilisation "
            "(NETSCORE_STALE_POLICY=closed)");
}

TEST_F(FilterLinkTest, StaleTableNamesTheUtilisationAnnotation) {
  publish(Direction::receive);
  const std::int64_t stale = mono_now_ns() + 61'000'000'000;
  EXPECT_EQ(run("netscore.io/max-utilisation", "0.1", stale).passed.size(), 5U);
  config_.extender.stale_policy = StalePolicy::fail_closed;
  const Result r = run("netscore.io/max-utilisation", "0.1", stale);
  EXPECT_TRUE(r.passed.empty());
  EXPECT_EQ(r.failed.at("absent"),
            "netscore: score table stale, cannot check netscore.io/max-utilisation "
            "(NETSCORE_STALE_POLICY=closed)");
}

TEST_F(FilterLinkTest, MalformedUtilisationFailsEveryNode) {
  publish(Direction::receive);
  for (const std::string_view text : {"80", "150%", "-0.5", "x", "%", "", "0.8 ", "nan", "inf%"}) {
    const Result r = run("netscore.io/max-utilisation", text);
    EXPECT_TRUE(r.passed.empty()) << text;
    ASSERT_EQ(r.failed.size(), 5U) << text;
    EXPECT_THAT(
        r.failed.at("calm"),
        ::testing::HasSubstr("is not a fraction of the link from 0 to 1 (e.g. 0.8, or a percent)"))
        << text;
  }
  // The scheduler's formatting would garble a percent sign in the echoed value.
  EXPECT_EQ(run("netscore.io/max-utilisation", "150%").failed.at("calm"),
            "netscore: annotation netscore.io/max-utilisation=\"150?\" is not a fraction of the "
            "link from 0 to 1 (e.g. 0.8, or a percent)");
}

TEST_F(FilterLinkTest, PodsAskingForALinkCeilingAreConstrained) {
  Filter filter(config_);
  ExtenderArgs args;
  EXPECT_FALSE(filter.constrains(args));
  args.pod_annotations = {{"netscore.io/max-utilisation", "0.5"}};
  EXPECT_TRUE(filter.constrains(args));
  args.pod_annotations = {{"netscore.io/max-transmit-rate", "1Mi"}};
  EXPECT_TRUE(filter.constrains(args));
}

}  // namespace
}  // namespace netscore::extender
