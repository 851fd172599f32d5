// Link utilisation against two real engines, Prometheus and VictoriaMetrics: what the collector
// publishes from its one batched query (receive and transmit rates, link speeds, the scored value
// in each basis and direction, the 0..100 node scores) equals the engine's own evaluation of
// PromQL written here by hand, evaluated at the same time. Nodes with a 1 Gb/s and a 10 Gb/s link,
// one reporting -1 (no link speed), one without a speed series, and one whose speed changes
// between two evaluation times (synth.h). Each engine is compared with itself: their rate()
// semantics differ (docs/prometheus.md).
#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "collector/prometheus/query_builder.h"
#include "common/duration.h"
#include "tests/integration/collector/collector_test_helpers.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"
#include "tests/support/synth.h"
#include "tests/support/victoria_metrics_process.h"

namespace netscore::testing {
namespace {

constexpr unsigned kNodes = 10;
constexpr const char* kNodeLabel = "kubernetes_node";
constexpr const char* kFallbackSpeed = "125000000";  // written "125M" in the configuration

SynthOptions traffic(std::int64_t now_s) {
  return {.nodes = kNodes,
          .end_s = now_s + 3600,
          .hours = 2,
          .step_s = 15,
          .layout = SynthLayout::kubernetes_node,
          .extra_metric = {},
          .links = true};
}

struct OnPrometheus {
  static constexpr const char* kName = "Prometheus";
  explicit OnPrometheus(const SynthOptions& options) : process(options) {}
  std::string url() const { return process.url(); }
  PrometheusProcess process;
};

struct OnVictoriaMetrics {
  static constexpr const char* kName = "VictoriaMetrics";
  explicit OnVictoriaMetrics(const SynthOptions& options) : process(options) {}
  std::string url() const { return process.url() + "/prometheus"; }
  VictoriaMetricsProcess process;
};

using Values = std::map<std::string, double>;

// The engine's answer per node, read with rapidjson and strtod: not the collector's parser.
Values evaluate(const std::string& url, const std::string& promql, std::int64_t eval_ms) {
  CURL* curl = curl_easy_init();
  char* escaped = curl_easy_escape(curl, promql.data(), static_cast<int>(promql.size()));
  const std::string body = "query=" + std::string(escaped) +
                           "&time=" + std::to_string(eval_ms / 1000) + "." +
                           std::to_string(1000 + eval_ms % 1000).substr(1);
  curl_free(escaped);
  curl_easy_cleanup(curl);
  const HttpReply reply = http_request({.method = "POST",
                                        .url = url + "/api/v1/query",
                                        .body = body,
                                        .content_type = "application/x-www-form-urlencoded"});
  EXPECT_EQ(reply.status, 200) << promql << ": " << reply.body;
  rapidjson::Document doc;
  doc.Parse(reply.body.data(), reply.body.size());
  Values out;
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("data")) {
    ADD_FAILURE() << promql << ": " << reply.body;
    return out;
  }
  for (const auto& series : doc["data"]["result"].GetArray()) {
    const std::string node = series["metric"][kNodeLabel].GetString();
    const double value = std::strtod(series["value"][1].GetString(), nullptr);
    EXPECT_TRUE(out.emplace(node, value).second) << "two series for " << node << " in " << promql;
  }
  return out;
}

// PromQL per node, written independently of query_builder.
std::string per_node(const std::string& function, const std::string& metric) {
  return "sum by (kubernetes_node) (" + function + "(" + metric + "{device=\"eth0\"}[5m]))";
}
const std::string kReceive = "node_network_receive_bytes_total";
const std::string kTransmit = "node_network_transmit_bytes_total";
const std::string kSpeed =
    "sum by (kubernetes_node) (node_network_speed_bytes{device=\"eth0\"} > 0)";
const std::string kUnusable =
    "count by (kubernetes_node) (node_network_speed_bytes{device=\"eth0\"} <= 0)";

// receive, transmit, or the larger of the two per node.
std::string in_direction(const std::string& direction, const std::string& receive,
                         const std::string& transmit) {
  if (direction == "receive") return receive;
  if (direction == "transmit") return transmit;
  return "((" + receive + ") > (" + transmit + ")) or (" + transmit + ")";
}

struct Case {
  std::string basis;
  std::string direction;
  std::string function;
  std::string fallback;  // NETSCORE_FALLBACK_LINK_SPEED
};

Config case_config(const std::string& url, const Case& c) {
  Config config = load_config(Component::collector, {},
                              {{"NETSCORE_PROMETHEUS_URL", url},
                               {"NETSCORE_QUERY_FUNCTION", c.function},
                               {"NETSCORE_NODE_LABEL", kNodeLabel},
                               {"NETSCORE_INTERFACE", "eth0"},
                               {"NETSCORE_TIME_RANGE", "5m"},
                               {"NETSCORE_SCORE_BASIS", c.basis},
                               {"NETSCORE_DIRECTION", c.direction},
                               {"NETSCORE_FALLBACK_LINK_SPEED", c.fallback},
                               {"NETSCORE_PROMETHEUS_TIMEOUT", "5s"}});
  config.prometheus.retries = 0;
  return config;
}

// The plugin's NormalizeScore, per group of nodes scored on the same basis.
std::map<std::string, std::int64_t> normalised(const std::map<std::string, std::int64_t>& scores) {
  std::int64_t max = 0;
  for (const auto& [node, score] : scores) max = std::max(max, score);
  std::map<std::string, std::int64_t> out;
  for (const auto& [node, score] : scores) out[node] = max == 0 ? 100 : 100 - score * 100 / max;
  return out;
}

// One refresh through the real Measurer and Publisher, then every published figure against the
// engine's own evaluation at the same time.
void expect_published_as_evaluated(const std::string& url, const Case& c, std::int64_t eval_ms) {
  SCOPED_TRACE("basis=" + c.basis + " direction=" + c.direction + " function=" + c.function +
               " fallback=" + c.fallback);
  const Config config = case_config(url, c);
  TableFixture table("collector-utilisation");
  collector::PrometheusClient client({config.prometheus});
  Refresh refresher(config, client, table.writer());
  const auto result = refresher.refresh(eval_ms, no_wait());
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.nodes.skipped, 0U);
  shm::SnapshotMeta meta{};
  const auto rows = table.rows(meta);
  EXPECT_EQ(meta.basis, static_cast<std::uint32_t>(config.query.basis));
  EXPECT_EQ(meta.direction, static_cast<std::uint32_t>(config.query.direction));

  const Values receive_value = evaluate(url, per_node(c.function, kReceive), eval_ms);
  const Values receive_rate = evaluate(url, per_node("rate", kReceive), eval_ms);
  const Values transmit_rate = evaluate(url, per_node("rate", kTransmit), eval_ms);
  const Values speed = evaluate(url, kSpeed, eval_ms);
  const Values unusable = evaluate(url, kUnusable, eval_ms);
  const Values utilisation =
      evaluate(url,
               in_direction(c.direction, per_node("rate", kReceive) + " / " + kSpeed,
                            per_node("rate", kTransmit) + " / " + kSpeed),
               eval_ms);
  const Values fallback_utilisation =
      evaluate(url,
               in_direction(c.direction, per_node("rate", kReceive) + " / " + kFallbackSpeed,
                            per_node("rate", kTransmit) + " / " + kFallbackSpeed),
               eval_ms);
  const Values raw = evaluate(
      url,
      in_direction(c.direction, per_node(c.function, kReceive), per_node(c.function, kTransmit)),
      eval_ms);

  ASSERT_EQ(rows.size(), kNodes);
  ASSERT_EQ(receive_value.size(), kNodes);
  ASSERT_EQ(transmit_rate.size(), kNodes);
  // The data must hold what the test is about: both speeds, a -1 and a node without a speed.
  ASSERT_EQ(speed.size(), kNodes - 2);
  ASSERT_EQ(unusable.size(), 1U);
  std::map<std::string, std::int64_t> utilisation_scores;
  std::map<std::string, std::int64_t> raw_scores;
  const bool asks_links = c.basis != "raw" || c.direction != "receive";
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const auto& f = row.score;
    EXPECT_EQ(f.raw, receive_value.at(row.name));
    ASSERT_NE(f.flags & shm::kEntryRateValid, 0U);
    EXPECT_EQ(f.rate, receive_rate.at(row.name));
    if (!asks_links) {
      // Received bytes alone ask what the seed asked: no transmit rate, no speeds.
      EXPECT_EQ(f.flags & (shm::kEntryTransmitRateValid | shm::kEntrySpeedUnusable |
                           shm::kEntrySpeedMeasured),
                0U);
      EXPECT_EQ(f.scored, raw.at(row.name));
      raw_scores[row.name] = static_cast<std::int64_t>(raw.at(row.name));
      continue;
    }
    ASSERT_NE(f.flags & shm::kEntryTransmitRateValid, 0U);
    EXPECT_EQ(f.transmit_rate, transmit_rate.at(row.name));
    EXPECT_EQ((f.flags & shm::kEntrySpeedUnusable) != 0, unusable.contains(row.name));
    const bool measured = speed.contains(row.name);
    EXPECT_EQ((f.flags & shm::kEntrySpeedMeasured) != 0, measured);
    EXPECT_EQ((f.flags & shm::kEntrySpeedFallback) != 0, !measured && !c.fallback.empty());
    if (measured) {
      EXPECT_EQ(f.speed, speed.at(row.name));
    } else {
      EXPECT_EQ(f.speed, c.fallback.empty() ? 0.0 : std::strtod(kFallbackSpeed, nullptr));
    }
    ASSERT_TRUE(f.valid());
    const bool on_utilisation = c.basis == "utilisation" && (measured || !c.fallback.empty());
    EXPECT_EQ((f.flags & shm::kEntryUtilisation) != 0, on_utilisation);
    if (on_utilisation) {
      const double expected =
          measured ? utilisation.at(row.name) : fallback_utilisation.at(row.name);
      EXPECT_EQ(f.scored, expected);
      EXPECT_EQ(f.raw_score, static_cast<std::int64_t>(expected * 1e6));
      utilisation_scores[row.name] = static_cast<std::int64_t>(expected * 1e6);
    } else {
      EXPECT_EQ(f.scored, raw.at(row.name));
      EXPECT_EQ(f.raw_score, static_cast<std::int64_t>(raw.at(row.name)));
      raw_scores[row.name] = static_cast<std::int64_t>(raw.at(row.name));
    }
  }
  ASSERT_EQ(utilisation_scores.size() + raw_scores.size(), kNodes);
  const auto utilisation_node_scores = normalised(utilisation_scores);
  const auto raw_node_scores = normalised(raw_scores);
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const auto& scores =
        utilisation_scores.contains(row.name) ? utilisation_node_scores : raw_node_scores;
    EXPECT_EQ(row.score.node_score, scores.at(row.name));
    EXPECT_EQ(row.score.corrected_node_score, scores.at(row.name));
  }
}

template <class Engine>
class LinkUtilisationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    now_s_ = std::time(nullptr);
    engine_ = std::make_unique<Engine>(traffic(now_s_));
  }
  static void TearDownTestSuite() { engine_.reset(); }

  // 150 s after the window's midpoint, where node 1's counter resets and node 4's speed changes.
  static std::int64_t after_change_ms() { return (now_s_ + 150) * 1000 + 250; }
  static std::int64_t before_change_ms() { return (now_s_ - 60) * 1000 + 250; }

  static inline std::int64_t now_s_ = 0;
  static inline std::unique_ptr<Engine> engine_;
};

struct EngineNames {
  template <class Engine>
  static std::string GetName(int) {
    return Engine::kName;
  }
};

using Engines = ::testing::Types<OnPrometheus, OnVictoriaMetrics>;
TYPED_TEST_SUITE(LinkUtilisationTest, Engines, EngineNames);

TYPED_TEST(LinkUtilisationTest, UtilisationInEveryDirectionEqualsTheEnginesDivision) {
  for (const char* direction : {"receive", "transmit", "max"}) {
    for (const char* fallback : {"", "125M"}) {
      expect_published_as_evaluated(this->engine_->url(),
                                    {"utilisation", direction, "rate", fallback},
                                    this->after_change_ms());
    }
  }
}

TYPED_TEST(LinkUtilisationTest, RawBasisScoresTheDirectionsValue) {
  for (const char* direction : {"receive", "transmit", "max"}) {
    expect_published_as_evaluated(this->engine_->url(), {"raw", direction, "sum_over_time", ""},
                                  this->after_change_ms());
    expect_published_as_evaluated(this->engine_->url(), {"raw", direction, "rate", ""},
                                  this->after_change_ms());
    // The nodes without a speed fall back to the raw value in the same direction.
    expect_published_as_evaluated(this->engine_->url(),
                                  {"utilisation", direction, "sum_over_time", ""},
                                  this->after_change_ms());
  }
}

// The descheduler's query (--print-rules records it over NETSCORE_REBALANCE_WINDOW), over the
// scores' range, gives each node the utilisation the collector scores it by, under `instance`, and
// no series to a node scored on another basis.
TYPED_TEST(LinkUtilisationTest, TheDeschedulersQueryIsTheUtilisationTheCollectorScores) {
  const std::string url = this->engine_->url();
  for (const char* direction : {"receive", "transmit", "max"}) {
    for (const char* fallback : {"", "125M"}) {
      SCOPED_TRACE(std::string(direction) + " fallback=" + fallback);
      const Config config = case_config(url, {"utilisation", direction, "rate", fallback});
      TableFixture table("collector-descheduler");
      collector::PrometheusClient client({config.prometheus});
      Refresh refresher(config, client, table.writer());
      ASSERT_TRUE(refresher.refresh(this->after_change_ms(), no_wait()).ok);
      shm::SnapshotMeta meta{};
      const auto rows = table.rows(meta);
      ASSERT_EQ(rows.size(), kNodes);
      // The node name read back from `instance` alone.
      const Values by_instance = evaluate(
          url,
          R"(label_replace(label_replace()" + collector::build_utilisation_query(config.query) +
              R"q(, "kubernetes_node", "", "", ""), "kubernetes_node", "$1", "instance", "(.+)"))q",
          this->after_change_ms());
      // The load the relative figure and the nomination read: the same, unclamped.
      const Values load = evaluate(
          url,
          R"(label_replace(label_replace()" + collector::build_link_load_query(config.query) +
              R"q(, "kubernetes_node", "", "", ""), "kubernetes_node", "$1", "instance", "(.+)"))q",
          this->after_change_ms());
      std::size_t on_utilisation = 0;
      for (const auto& row : rows) {
        SCOPED_TRACE(row.name);
        if ((row.score.flags & shm::kEntryUtilisation) == 0) {
          EXPECT_FALSE(by_instance.contains(row.name));
          EXPECT_FALSE(load.contains(row.name));
          continue;
        }
        ++on_utilisation;
        ASSERT_TRUE(by_instance.contains(row.name));
        EXPECT_EQ(by_instance.at(row.name), std::clamp(row.score.scored, 0.0, 1.0));
        ASSERT_TRUE(load.contains(row.name));
        EXPECT_EQ(load.at(row.name), row.score.scored);
      }
      EXPECT_EQ(by_instance.size(), on_utilisation);
      EXPECT_EQ(load.size(), on_utilisation);
      // The data holds both kinds: two nodes without a speed, scored at the fallback or not.
      EXPECT_EQ(on_utilisation, std::string(fallback).empty() ? kNodes - 2 : kNodes);
    }
  }
}

// With direction max the relative figure reads every node in the direction with the larger mean
// load (--print-rules records it from the two directions' loads): each engine evaluates the rule's
// expression to the load of that direction, whichever side of the expression holds it, on traffic
// where the busier side differs from node to node.
TYPED_TEST(LinkUtilisationTest, TheMainDirectionIsTheOneWithTheLargerMeanLoad) {
  const std::string url = this->engine_->url();
  const auto load_query = [&](const char* direction) {
    const Config config = case_config(url, {"utilisation", direction, "rate", ""});
    return collector::build_link_load_query(config.query);
  };
  const auto by_node = [&](const std::string& query) {
    return evaluate(
        url,
        R"(label_replace(label_replace()" + query +
            R"q(, "kubernetes_node", "", "", ""), "kubernetes_node", "$1", "instance", "(.+)"))q",
        this->after_change_ms());
  };
  const std::string receive_query = load_query("receive");
  const std::string transmit_query = load_query("transmit");
  const Values receive = by_node(receive_query);
  const Values transmit = by_node(transmit_query);
  const Values busier = by_node(load_query("max"));
  ASSERT_FALSE(receive.empty());
  ASSERT_FALSE(transmit.empty());
  const auto mean = [](const Values& values) {
    double sum = 0;
    for (const auto& [node, value] : values) sum += value;
    return sum / static_cast<double>(values.size());
  };
  ASSERT_NE(mean(receive), mean(transmit));
  const Values& main = mean(transmit) > mean(receive) ? transmit : receive;
  EXPECT_NE(busier, main) << "some node's busier side is the other direction";
  EXPECT_EQ(by_node(collector::build_main_direction_load_query(receive_query, transmit_query)),
            main);
  EXPECT_EQ(by_node(collector::build_main_direction_load_query(transmit_query, receive_query)),
            main);
}

// Link speeds are asked apart and cached: a speed that changed is read at the next recheck
// (forty refresh intervals), and until then the refresh uses the one asked, whose time it says.
TYPED_TEST(LinkUtilisationTest, ANodeWhoseSpeedChangesIsReadAgainAtTheRecheck) {
  const std::string url = this->engine_->url();
  const std::string node = synth_nodes(kNodes)[4].name;
  const std::string utilisation = per_node("rate", kReceive) + " / " + kSpeed;
  for (const bool recheck_now : {false, true}) {
    SCOPED_TRACE(recheck_now);
    Config config = case_config(url, {"utilisation", "receive", "rate", ""});
    if (recheck_now) config.recheck_interval = *parse_prom_duration("1ms");
    TableFixture table("collector-speed-change");
    collector::PrometheusClient client({config.prometheus});
    std::int64_t now_ms = 0;
    Refresh refresher(config, client, table.writer(), [&now_ms] { return now_ms; });
    ASSERT_TRUE(refresher.refresh(this->before_change_ms(), no_wait()).ok);
    // The next refresh, one refresh interval later: past the recheck only when it is 1 ms.
    now_ms += config.refresh_interval.value.count();
    const collector::Measurement m = refresher.refresh(this->after_change_ms(), no_wait());
    ASSERT_TRUE(m.ok) << m.error;
    shm::SnapshotMeta meta{};
    const auto rows = table.rows(meta);
    ASSERT_EQ(meta.eval_time_ms, this->after_change_ms());
    ASSERT_EQ(rows.size(), kNodes);
    const auto& f = rows[4].score;
    ASSERT_EQ(rows[4].name, node);
    // The engine itself says the speed changed in between: 1 Gb/s, then 10 Gb/s.
    ASSERT_EQ(evaluate(url, kSpeed, this->before_change_ms()).at(node), kSynthGigabit);
    ASSERT_EQ(evaluate(url, kSpeed, this->after_change_ms()).at(node), kSynthTenGigabit);
    EXPECT_NE(f.flags & shm::kEntryUtilisation, 0U);
    if (recheck_now) {
      EXPECT_EQ(m.plan.speeds_eval_time_ms, this->after_change_ms());
      EXPECT_EQ(f.speed, kSynthTenGigabit);
      EXPECT_EQ(f.scored, evaluate(url, utilisation, this->after_change_ms()).at(node));
    } else {
      EXPECT_EQ(m.plan.asked_apart, 0U);
      EXPECT_EQ(m.plan.speeds_eval_time_ms, this->before_change_ms());
      EXPECT_EQ(f.speed, kSynthGigabit);
      EXPECT_EQ(f.scored,
                evaluate(url, per_node("rate", kReceive), this->after_change_ms()).at(node) /
                    kSynthGigabit);
    }
  }
}

}  // namespace
}  // namespace netscore::testing
