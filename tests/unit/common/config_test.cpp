#include "common/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace netscore {
namespace {

using ::testing::HasSubstr;

Config load(Component c, const Environment& env, const std::vector<std::string>& args = {}) {
  return load_config(c, args, env);
}

std::string error_of(Component c, const Environment& env,
                     const std::vector<std::string>& args = {}) {
  try {
    load_config(c, args, env);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Config, DefaultsMatchTheDocumentedValues) {
  const Config c = load(Component::collector, {});
  EXPECT_EQ(c.prometheus.url, "http://127.0.0.1:9090");
  EXPECT_EQ(c.query.interface, "ens192");
  EXPECT_EQ(c.query.time_range.text, "5m");
  EXPECT_EQ(c.refresh_interval.value, std::chrono::seconds(15));
  EXPECT_EQ(c.query.mode, QueryMode::label);
  EXPECT_EQ(c.query.node_label, "kubernetes_node");
  EXPECT_EQ(c.query.node_labels,
            (std::vector<std::string>{"kubernetes_node", "node", "nodename", "instance"}));
  EXPECT_TRUE(c.prometheus.headers.empty());
  EXPECT_EQ(c.query.metric, "node_network_receive_bytes_total");
  EXPECT_EQ(c.shm.name, "netscore");
  EXPECT_EQ(c.shm.mode, 0600U);
  EXPECT_EQ(c.log_level, LogLevel::info);
  EXPECT_TRUE(c.pod_traffic.enabled);
  EXPECT_EQ(pod_traffic_interval(c), std::chrono::minutes(1));
  const Config e = load(Component::extender, {});
  EXPECT_EQ(e.extender.listen_host, "127.0.0.1");
  EXPECT_EQ(e.extender.listen_port, 8888);
  EXPECT_EQ(e.max_age.value, std::chrono::minutes(1));
  EXPECT_EQ(e.extender.neutral_score, 5);
  EXPECT_GT(e.extender.idle_timeout.value, std::chrono::seconds(90));
}

TEST(Config, EnvironmentSetsEveryPublicVariable) {
  const Config c =
      load(Component::collector, {{"NETSCORE_PROMETHEUS_URL", "https://prom.example:9091/"},
                                  {"NETSCORE_INTERFACE", "eth0"},
                                  {"NETSCORE_TIME_RANGE", "2m"},
                                  {"NETSCORE_REFRESH_INTERVAL", "500ms"},
                                  {"NETSCORE_QUERY_MODE", "uname"},
                                  {"NETSCORE_NODE_LABEL", "instance_node"},
                                  {"NETSCORE_SHM_NAME", "ns-test"},
                                  {"NETSCORE_MAX_NODES", "5000"},
                                  {"NETSCORE_LOG_LEVEL", "debug"}});
  EXPECT_EQ(c.prometheus.url, "https://prom.example:9091");
  EXPECT_EQ(c.query.interface, "eth0");
  EXPECT_EQ(c.query.time_range.value, std::chrono::minutes(2));
  EXPECT_EQ(c.refresh_interval.value, std::chrono::milliseconds(500));
  EXPECT_EQ(c.query.mode, QueryMode::uname);
  EXPECT_EQ(c.query.node_label, "instance_node");
  EXPECT_EQ(c.shm.name, "ns-test");
  EXPECT_EQ(c.shm.capacity, 5000U);
  EXPECT_EQ(c.log_level, LogLevel::debug);
  const Config e =
      load(Component::extender, {{"NETSCORE_LISTEN", "[::1]:9999"}, {"NETSCORE_MAX_AGE", "90s"}});
  EXPECT_EQ(e.extender.listen_host, "::1");
  EXPECT_EQ(e.extender.listen_port, 9999);
  EXPECT_EQ(e.max_age.value, std::chrono::seconds(90));
}

TEST(Config, TheTrafficPerPodIsReadEveryFourRefreshes) {
  EXPECT_EQ(pod_traffic_interval(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "1s"}})),
            std::chrono::seconds(4));
  EXPECT_EQ(pod_traffic_interval(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "2s"}})),
            std::chrono::seconds(8));
}

TEST(Config, TheRecentPodsAreReadOverFourRefreshesAtLeastAMinuteAtMostTheWindow) {
  EXPECT_EQ(pod_traffic_recent_range(load(Component::collector, {})).value,
            std::chrono::minutes(1));
  EXPECT_EQ(pod_traffic_recent_range(load(Component::collector, {})).text, "60000ms");
  EXPECT_EQ(
      pod_traffic_recent_range(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "30s"}}))
          .value,
      std::chrono::minutes(2));
  EXPECT_EQ(
      pod_traffic_recent_range(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "1m"},
                                                           {"NETSCORE_TIME_RANGE", "3m"}}))
          .value,
      std::chrono::minutes(3));
}

// What retired settings set is derived from the settings that decide it now.
TEST(Config, DerivedValuesFollowTheSettingsThatDecideThem) {
  const Config c = load(Component::collector, {});
  EXPECT_EQ(c.recheck_interval.value, std::chrono::minutes(10));
  EXPECT_EQ(c.prometheus.connect_timeout.value, std::chrono::seconds(2));
  EXPECT_EQ(c.prometheus.retries, 2U);
  EXPECT_EQ(c.query.transmit_metric, "node_network_transmit_bytes_total");
  EXPECT_EQ(c.query.speed_metric, "node_network_speed_bytes");
  EXPECT_FALSE(c.query.interface_regex);
  const Config set =
      load(Component::collector,
           {{"NETSCORE_REFRESH_INTERVAL", "30s"},
            {"NETSCORE_PROMETHEUS_TIMEOUT", "20s"},
            {"NETSCORE_RECEIVE_METRIC", "instance:node_network_receive_bytes:rate5m"},
            {"NETSCORE_INTERFACE", "!lo|veth.+"}});
  EXPECT_EQ(set.recheck_interval.value, std::chrono::minutes(20));
  EXPECT_EQ(set.prometheus.connect_timeout.value, std::chrono::seconds(4));
  EXPECT_EQ(set.query.transmit_metric, "instance:node_network_transmit_bytes:rate5m");
  EXPECT_TRUE(set.query.interface_regex);
  EXPECT_FALSE(
      load(Component::collector, {{"NETSCORE_INTERFACE", "eth0.100"}}).query.interface_regex);
  EXPECT_EQ(
      load(Component::collector, {{"NETSCORE_RECEIVE_METRIC", "rx_total"}}).query.transmit_metric,
      "node_network_transmit_bytes_total");
  const Config e = load(Component::extender, {});
  EXPECT_EQ(e.extender.max_connections, 1024U);
  EXPECT_EQ(load(Component::extender, {{"NETSCORE_THREADS", "4"}}).extender.max_connections, 4096U);
  EXPECT_EQ(e.extender.body_limit, std::size_t{32} << 20);
  EXPECT_EQ(e.extender.header_timeout.value, std::chrono::seconds(10));
  EXPECT_EQ(e.extender.explain_decisions, 4096U);
  EXPECT_EQ(e.extender.explain_nodes, 32768U);
}

TEST(Config, TheRebalanceWindowIsFourRefreshesAtMostTheWindow) {
  const PromDuration shipped = rebalance_window(load(Component::collector, {}));
  EXPECT_EQ(shipped.value, std::chrono::minutes(1));
  EXPECT_EQ(shipped.text, "1m");
  // The closed-loop benchmarks' 15x: a 1 s refresh.
  EXPECT_EQ(rebalance_window(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "1s"},
                                                         {"NETSCORE_TIME_RANGE", "20s"}}))
                .text,
            "4s");
  EXPECT_EQ(rebalance_window(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "1m"},
                                                         {"NETSCORE_TIME_RANGE", "3m"}}))
                .value,
            std::chrono::minutes(3));
  const PromDuration set =
      rebalance_window(load(Component::collector, {{"NETSCORE_REBALANCE_WINDOW", "90s"}}));
  EXPECT_EQ(set.value, std::chrono::seconds(90));
  EXPECT_EQ(set.text, "90s");
}

TEST(Config, TheRebalanceRestIsTwentyRefreshes) {
  EXPECT_EQ(rebalance_rest(load(Component::collector, {})).value, std::chrono::minutes(5));
  EXPECT_EQ(rebalance_rest(load(Component::collector, {{"NETSCORE_REFRESH_INTERVAL", "1s"}})).text,
            "20s");
}

TEST(Config, FlagsOverrideEnvironment) {
  const Config c = load(Component::collector, {{"NETSCORE_INTERFACE", "eth0"}},
                        {"--interface=eth1", "--time-range", "10m"});
  EXPECT_EQ(c.query.interface, "eth1");
  EXPECT_EQ(c.query.time_range.text, "10m");
}

struct BadCase {
  Component component;
  const char* variable;
  const char* value;
  const char* expected;
};

class ConfigErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ConfigErrors, NameTheVariableTheValueAndWhatIsExpected) {
  const auto& p = GetParam();
  const std::string error = error_of(p.component, {{p.variable, p.value}});
  EXPECT_THAT(error, HasSubstr(p.variable));
  EXPECT_THAT(error, HasSubstr(std::string("\"") + p.value + "\""));
  EXPECT_THAT(error, HasSubstr(p.expected));
}

INSTANTIATE_TEST_SUITE_P(
    EveryParser, ConfigErrors,
    ::testing::Values(
        BadCase{Component::collector, "NETSCORE_PROMETHEUS_URL", "prometheus:9090", "http://"},
        BadCase{Component::collector, "NETSCORE_PROMETHEUS_URL", "http://", "http://"},
        BadCase{Component::collector, "NETSCORE_INTERFACE", "", "a device name"},
        BadCase{Component::collector, "NETSCORE_INTERFACE", "!", "! and one for every device"},
        BadCase{Component::collector, "NETSCORE_POD_TRAFFIC", "auto", "true or false"},
        BadCase{Component::collector, "NETSCORE_TIME_RANGE", "5 minutes", "duration"},
        BadCase{Component::collector, "NETSCORE_REFRESH_INTERVAL", "0s", "duration"},
        BadCase{Component::collector, "NETSCORE_QUERY_MODE", "labels", "one of label uname custom"},
        BadCase{Component::collector, "NETSCORE_QUERY_FUNCTION", "avg", "sum_over_time"},
        BadCase{Component::collector, "NETSCORE_NODE_LABEL", "kubernetes-node", "[a-zA-Z_]"},
        BadCase{Component::collector, "NETSCORE_RECEIVE_METRIC", "1bytes", "[a-zA-Z_:]"},
        BadCase{Component::collector, "NETSCORE_NODE_LABEL", "node,", "comma-separated"},
        BadCase{Component::collector, "NETSCORE_PROMETHEUS_HEADERS", "X-Scope-OrgID", "Name=value"},
        BadCase{Component::collector, "NETSCORE_PROMETHEUS_HEADERS", "Bad Name=x", "Name=value"},
        BadCase{Component::collector, "NETSCORE_SHM_NAME", "a/b", "no '/'"},
        BadCase{Component::collector, "NETSCORE_MAX_NODES", "0", "from 1"},
        BadCase{Component::collector, "NETSCORE_MAX_NODES", "12k", "from 1"},
        BadCase{Component::collector, "NETSCORE_PROMETHEUS_INSECURE", "maybe", "true or false"},
        BadCase{Component::collector, "NETSCORE_PROMETHEUS_TIMEOUT", "0s", "positive duration"},
        BadCase{Component::collector, "NETSCORE_FALLBACK_LINK_SPEED", "fast", "link speed"},
        BadCase{Component::collector, "NETSCORE_LOG_LEVEL", "verbose", "trace"},
        BadCase{Component::extender, "NETSCORE_MAX_AGE", "forever", "duration"},
        BadCase{Component::extender, "NETSCORE_LISTEN", "8888", "host:port"},
        BadCase{Component::extender, "NETSCORE_LISTEN", "127.0.0.1:70000", "host:port"},
        BadCase{Component::extender, "NETSCORE_LISTEN", "::1:8888", "host:port"},
        BadCase{Component::extender, "NETSCORE_NORMALISATION", "global", "request range cluster"},
        BadCase{Component::collector, "NETSCORE_PROFILE", "seed", "default or plugin"},
        BadCase{Component::extender, "NETSCORE_SPREAD_WINDOW", "soon", "duration"},
        BadCase{Component::collector, "NETSCORE_LEARN_WORKLOADS", "maybe", "true false auto"},
        BadCase{Component::extender, "NETSCORE_STALE_POLICY", "lenient", "open closed"},
        BadCase{Component::extender, "NETSCORE_THREADS", "-1", "thread count"}));

TEST(Config, RecordingRuleMetricsNodeLabelListsAndHeaders) {
  const Config c = load(Component::collector,
                        {{"NETSCORE_RECEIVE_METRIC", "instance:node_network_receive_bytes:rate5m"},
                         {"NETSCORE_NODE_LABEL", "node,instance"},
                         {"NETSCORE_PROMETHEUS_HEADERS", "X-Scope-OrgID=tenant1,X-Extra=a=b"}});
  EXPECT_EQ(c.query.metric, "instance:node_network_receive_bytes:rate5m");
  EXPECT_EQ(c.query.node_labels, (std::vector<std::string>{"node", "instance"}));
  EXPECT_EQ(c.query.node_label, "node");
  ASSERT_EQ(c.prometheus.headers.size(), 2U);
  EXPECT_EQ(c.prometheus.headers[0],
            (std::pair<std::string, std::string>{"X-Scope-OrgID", "tenant1"}));
  EXPECT_EQ(c.prometheus.headers[1], (std::pair<std::string, std::string>{"X-Extra", "a=b"}));
  const Config single = load(Component::collector, {{"NETSCORE_NODE_LABEL", "instance"}});
  EXPECT_EQ(single.query.node_labels, std::vector<std::string>{"instance"});
}

// Renamed variables keep working under their old names, each with a one-line warning naming the
// current one; an old and a new name that disagree are an error naming both.
TEST(Config, OldNamesStillWorkWithADeprecationWarning) {
  struct Case {
    const char* old_name;
    const char* value;
    Component component;
  };
  const std::vector<Case> cases{{"NETSCORE_CAPACITY", "5000", Component::collector},
                                {"NETSCORE_METRIC", "rx_total", Component::collector},
                                {"NETSCORE_SCORING", "range", Component::extender}};
  for (const Case& c : cases) {
    std::vector<std::string> warnings;
    const Config config = load_config(c.component, {}, {{c.old_name, c.value}}, &warnings);
    ASSERT_EQ(warnings.size(), 1U) << c.old_name;
    EXPECT_THAT(warnings[0], HasSubstr(std::string(c.old_name) + " is deprecated: use NETSCORE_"))
        << c.old_name;
  }
  EXPECT_EQ(load(Component::collector, {{"NETSCORE_CAPACITY", "5000"}}).shm.capacity, 5000U);
  EXPECT_EQ(load(Component::collector, {{"NETSCORE_METRIC", "rx_total"}}).query.metric, "rx_total");
  EXPECT_EQ(load(Component::extender, {{"NETSCORE_SCORING", "range"}}).extender.normalisation,
            Normalisation::range);
  EXPECT_EQ(load(Component::extender, {}, {"--scoring=cluster"}).extender.normalisation,
            Normalisation::cluster);
  EXPECT_THAT(error_of(Component::collector,
                       {{"NETSCORE_CAPACITY", "5000"}, {"NETSCORE_MAX_NODES", "6000"}}),
              HasSubstr("NETSCORE_CAPACITY and NETSCORE_MAX_NODES disagree"));
  EXPECT_EQ(
      load(Component::collector, {{"NETSCORE_CAPACITY", "5000"}, {"NETSCORE_MAX_NODES", "5000"}})
          .shm.capacity,
      5000U);
  EXPECT_THAT(error_of(Component::collector, {{"NETSCORE_CAPACITY", "0"}}),
              HasSubstr("NETSCORE_CAPACITY"));
}

// Retired variables and flags still start the process: one warning naming the variable and what
// decides its value now, and the value is ignored, whatever it is.
TEST(Config, RetiredNamesWarnWithTheRuleAndAreIgnored) {
  struct Case {
    const char* name;
    const char* value;
    Component component;
    const char* rule;
  };
  const std::vector<Case> cases{
      {"NETSCORE_RECHECK_INTERVAL", "1m", Component::collector, "forty NETSCORE_REFRESH_INTERVALs"},
      {"NETSCORE_PROMETHEUS_CONNECT_TIMEOUT", "garbage", Component::collector,
       "a fifth of NETSCORE_PROMETHEUS_TIMEOUT"},
      {"NETSCORE_INTERFACE_REGEX", "true", Component::collector, "NETSCORE_INTERFACE is a regex"},
      {"NETSCORE_KUBE_WATCH", "false", Component::collector, "NETSCORE_KUBE_API_URL"},
      {"NETSCORE_URL_PREFIX", "/netscore", Component::extender, "any path prefix"},
      {"NETSCORE_MAX_CONNECTIONS", "1", Component::extender, "1024 connections"},
      {"NETSCORE_HEADER_TIMEOUT", "3s", Component::extender, "10s"}};
  const Config collector_defaults = load(Component::collector, {});
  const Config extender_defaults = load(Component::extender, {});
  for (const Case& c : cases) {
    std::vector<std::string> warnings;
    const Config config = load_config(c.component, {}, {{c.name, c.value}}, &warnings);
    ASSERT_EQ(warnings.size(), 1U) << c.name;
    EXPECT_THAT(warnings[0], HasSubstr(std::string(c.name) + " is retired and ignored: "));
    EXPECT_THAT(warnings[0], HasSubstr(c.rule)) << c.name;
    const Config& defaults =
        c.component == Component::collector ? collector_defaults : extender_defaults;
    EXPECT_EQ(config.recheck_interval.value, defaults.recheck_interval.value) << c.name;
    EXPECT_EQ(config.prometheus.connect_timeout.value, defaults.prometheus.connect_timeout.value);
    EXPECT_EQ(config.query.interface_regex, defaults.query.interface_regex);
    EXPECT_EQ(config.extender.max_connections, defaults.extender.max_connections);
    EXPECT_EQ(config.extender.header_timeout.value, defaults.extender.header_timeout.value);
  }
  // As flags, in both spellings, the value is consumed and ignored.
  std::vector<std::string> warnings;
  const Config flags =
      load_config(Component::extender, {"--idle-timeout", "1s", "--neutral-score=9", "--threads=2"},
                  {}, &warnings);
  ASSERT_EQ(warnings.size(), 2U);
  EXPECT_THAT(warnings[0], HasSubstr("--idle-timeout is retired and ignored: "));
  EXPECT_THAT(warnings[1], HasSubstr("--neutral-score is retired and ignored: "));
  EXPECT_EQ(flags.extender.idle_timeout.value, std::chrono::seconds(120));
  EXPECT_EQ(flags.extender.neutral_score, 5);
  EXPECT_EQ(flags.extender.threads, 2U);
  // A surviving setting's bad value still fails beside a retired one.
  EXPECT_THAT(error_of(Component::collector, {{"NETSCORE_RECHECK_INTERVAL", "1m"},
                                              {"NETSCORE_REFRESH_INTERVAL", "never"}}),
              HasSubstr("invalid NETSCORE_REFRESH_INTERVAL=\"never\""));
}

TEST(Config, EssentialSettingsAreFewAndListedFirst) {
  for (const auto component : {Component::collector, Component::extender}) {
    const auto docs = documented_variables(component);
    const auto first_advanced =
        std::find_if(docs.begin(), docs.end(), [](const VariableDoc& d) { return !d.essential; });
    EXPECT_TRUE(
        std::none_of(first_advanced, docs.end(), [](const VariableDoc& d) { return d.essential; }));
    for (const auto& doc : docs) EXPECT_FALSE(doc.when.empty()) << doc.env;
    const std::string help = help_text(component, "prog");
    ASSERT_NE(first_advanced, docs.begin());
    EXPECT_LT(help.find("Essential settings"), help.find(docs.front().env));
    EXPECT_LT(help.find(docs.front().env), help.find("Advanced settings"));
    EXPECT_LT(help.find("Advanced settings"), help.find(first_advanced->env));
  }
  std::set<std::string> essential;
  std::set<std::string> all;
  for (const auto component : {Component::collector, Component::extender}) {
    for (const auto& doc : documented_variables(component)) {
      all.insert(doc.env);
      if (doc.essential) essential.insert(doc.env);
    }
  }
  EXPECT_LE(essential.size(), 10U);
  EXPECT_LE(all.size(), 45U);
  EXPECT_TRUE(essential.contains("NETSCORE_PROMETHEUS_URL"));
  EXPECT_TRUE(essential.contains("NETSCORE_LISTEN"));
  for (const RetiredDoc& r : retired_variables()) EXPECT_FALSE(all.contains(r.env)) << r.env;
}

TEST(Config, ThePluginProfileIsTheSeedsExactScoringAndExplicitSettingsWin) {
  const Config plugin = load(Component::collector, {{"NETSCORE_PROFILE", "plugin"}});
  EXPECT_EQ(plugin.query.function, QueryFunction::sum_over_time);
  EXPECT_EQ(plugin.query.basis, ScoreBasis::raw);
  EXPECT_EQ(plugin.query.direction, Direction::receive);
  // Variables sort before the profile's name and flags come after it: both still win.
  const Config mixed =
      load(Component::collector, {{"NETSCORE_PROFILE", "plugin"}, {"NETSCORE_DIRECTION", "max"}},
           {"--query-function=rate"});
  EXPECT_EQ(mixed.query.direction, Direction::max);
  EXPECT_EQ(mixed.query.function, QueryFunction::rate);
  EXPECT_EQ(mixed.query.basis, ScoreBasis::raw);
  const Config flag = load(Component::collector, {}, {"--profile=plugin"});
  EXPECT_EQ(flag.query.function, QueryFunction::sum_over_time);
  const Config defaults = load(Component::collector, {{"NETSCORE_PROFILE", "default"}});
  EXPECT_EQ(defaults.query.basis, ScoreBasis::utilisation);
}

TEST(Config, OffIsSpeltOffForEveryOptionalFeatureAndQuantitiesWhereBytesAreCounted) {
  const Config e = load(Component::extender,
                        {{"NETSCORE_SPREAD_WINDOW", "off"}, {"NETSCORE_METRICS_LISTEN", "off"}});
  EXPECT_EQ(e.extender.spread_window.value.count(), 0);
  EXPECT_EQ(e.extender.metrics_port, 0);
  // The older spellings of off keep working.
  EXPECT_EQ(load(Component::extender, {{"NETSCORE_SPREAD_WINDOW", "0"}})
                .extender.spread_window.value.count(),
            0);
  EXPECT_EQ(
      load(Component::collector, {{"NETSCORE_FALLBACK_LINK_SPEED", "off"}}).query.fallback_speed,
      0.0);
  EXPECT_EQ(
      load(Component::collector, {{"NETSCORE_FALLBACK_LINK_SPEED", "1.5k"}}).query.fallback_speed,
      1500.0);
}

TEST(Config, CustomModeNeedsATemplate) {
  EXPECT_THAT(error_of(Component::collector, {{"NETSCORE_QUERY_MODE", "custom"}}),
              HasSubstr("NETSCORE_QUERY_TEMPLATE"));
  const Config c = load(Component::collector,
                        {{"NETSCORE_QUERY_MODE", "custom"},
                         {"NETSCORE_QUERY_TEMPLATE", "sum by ({node_label}) (x[{range}])"}});
  EXPECT_EQ(c.query.mode, QueryMode::custom);
}

TEST(Config, BadFlagsNameTheFlag) {
  EXPECT_THAT(error_of(Component::collector, {}, {"--interfase=eth0"}), HasSubstr("--interfase"));
  EXPECT_THAT(error_of(Component::collector, {}, {"--interface"}), HasSubstr("needs a value"));
  EXPECT_THAT(error_of(Component::collector, {}, {"--time-range=forever"}),
              HasSubstr("--time-range"));
  // A variable of the other binary is not a flag of this one.
  EXPECT_THAT(error_of(Component::collector, {}, {"--listen=0.0.0.0:1"}),
              HasSubstr("unknown flag"));
}

TEST(Config, OtherBinarysVariablesAreNotValidatedHere) {
  // Both containers of the pod usually share one env list.
  EXPECT_NO_THROW(load(Component::collector, {{"NETSCORE_LISTEN", "garbage"}}));
  EXPECT_NO_THROW(load(Component::extender, {{"NETSCORE_PROMETHEUS_URL", "garbage"}}));
}

TEST(Config, UnknownVariablesWarnButDoNotFail) {
  std::vector<std::string> warnings;
  load_config(Component::extender, {}, {{"NETSCORE_SERVICE_HOST", "10.0.0.1"}, {"OTHER", "x"}},
              &warnings);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_THAT(warnings[0], HasSubstr("NETSCORE_SERVICE_HOST"));
}

TEST(Config, HelpListsEveryVariableWithItsDefault) {
  EXPECT_THROW(load_config(Component::collector, {"--help"}, {}), HelpRequested);
  for (const auto component : {Component::collector, Component::extender}) {
    const std::string help = help_text(component, "prog");
    for (const auto& doc : documented_variables(component)) {
      EXPECT_THAT(help, HasSubstr(doc.env));
      EXPECT_THAT(help, HasSubstr(doc.flag));
      EXPECT_THAT(help, HasSubstr("default \"" + doc.default_value + "\""));
    }
  }
  EXPECT_THAT(help_text(Component::collector, "p"), HasSubstr("NETSCORE_PROMETHEUS_URL"));
  EXPECT_THAT(help_text(Component::extender, "p"), HasSubstr("NETSCORE_LISTEN"));
}

TEST(Config, ObservabilityVariables) {
  const Config d = load(Component::extender, {});
  EXPECT_EQ(d.log_format, LogFormat::text);
  EXPECT_TRUE(d.extender.metrics_host.empty());
  const Config e = load(Component::extender, {{"NETSCORE_LOG_FORMAT", "json"},
                                              {"NETSCORE_METRICS_LISTEN", "0.0.0.0:9888"}});
  EXPECT_EQ(e.log_format, LogFormat::json);
  EXPECT_EQ(e.extender.metrics_host, "0.0.0.0");
  EXPECT_EQ(e.extender.metrics_port, 9888);
  EXPECT_EQ(load(Component::collector, {{"NETSCORE_LOG_FORMAT", "json"}}).log_format,
            LogFormat::json);
  EXPECT_THAT(error_of(Component::extender, {{"NETSCORE_LOG_FORMAT", "logfmt"}}),
              HasSubstr("NETSCORE_LOG_FORMAT=\"logfmt\": expected one of text json"));
  EXPECT_THAT(error_of(Component::extender, {{"NETSCORE_METRICS_LISTEN", "9888"}}),
              HasSubstr("invalid NETSCORE_METRICS_LISTEN=\"9888\": expected host:port"));
}

TEST(KubeConfig, OffOutsideAPodWithoutAnUrl) {
  const Config c = load_config(Component::collector, {}, {});
  EXPECT_TRUE(c.kube.url.empty());
  EXPECT_TRUE(c.kube.correction);
  EXPECT_EQ(c.kube.pod_receive_rate, 1024);
  EXPECT_EQ(c.kube.pod_transmit_rate, 1024);
}

TEST(KubeConfig, InClusterDiscoveryUsesTheServiceAccount) {
  const Config c =
      load_config(Component::collector, {},
                  {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  EXPECT_EQ(c.kube.url, "https://10.96.0.1:443");
  EXPECT_EQ(c.kube.token_file, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  EXPECT_EQ(c.kube.ca_file, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");
  const Config v6 =
      load_config(Component::collector, {},
                  {{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  EXPECT_EQ(v6.kube.url, "https://[fd00::1]:443");
}

TEST(KubeConfig, ExplicitUrlWinsAndKeepsItsFiles) {
  const Config c = load_config(Component::collector, {},
                               {{"NETSCORE_KUBE_API_URL", "http://127.0.0.1:8001/"},
                                {"NETSCORE_KUBE_TOKEN_FILE", "/tmp/token"},
                                {"NETSCORE_CORRECTION", "false"},
                                {"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                {"KUBERNETES_SERVICE_PORT", "443"}});
  EXPECT_EQ(c.kube.url, "http://127.0.0.1:8001");
  EXPECT_EQ(c.kube.token_file, "/tmp/token");
  EXPECT_TRUE(c.kube.ca_file.empty());
  EXPECT_FALSE(c.kube.correction);
}

TEST(KubeConfig, BadValuesNameTheVariable) {
  const auto error_of = [](const Environment& env) {
    try {
      load_config(Component::collector, {}, env);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of({{"NETSCORE_KUBE_API_URL", "ftp://x"}}),
              ::testing::HasSubstr("NETSCORE_KUBE_API_URL"));
  EXPECT_THAT(error_of({{"NETSCORE_CORRECTION", "sometimes"}}),
              ::testing::HasSubstr("NETSCORE_CORRECTION"));
}

}  // namespace
}  // namespace netscore
