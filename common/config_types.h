#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/duration.h"
#include "common/label_rules.h"
#include "common/model/domain.h"

// The configuration's values: what each NETSCORE_* option sets. The table of options
// (config_options.h) and the loader that applies them (config.h) both build on these; they depend
// on neither.
namespace netscore {

// Which binary is loading the configuration; each variable says which binaries read it, so
// `--help` lists only what matters and a variable meant for the other container is ignored.
enum class Component : unsigned { collector = 1U, extender = 2U };

enum class LogLevel { trace, debug, info, warn, error, off };
enum class LogFormat { text, json };
enum class QueryMode { label, uname, custom };
// The model's words (common/model/domain.h), read here from their NETSCORE_* variables.
using model::Direction;
using model::Normalisation;
using model::QueryFunction;
using model::RebalanceFigure;
using model::ScoreBasis;
std::string_view score_basis_name(ScoreBasis basis);
std::string_view direction_name(Direction direction);
std::string_view normalisation_name(Normalisation normalisation);
enum class StalePolicy { fail_open, fail_closed };
enum class KubeWatch { automatic, on, off };

struct ShmConfig {
  std::string name = "netscore";
  std::uint32_t capacity = 16384;
  unsigned mode = 0600;
  bool allow_foreign_owner = false;
};

struct PrometheusConfig {
  std::string url;
  PromDuration connect_timeout;
  PromDuration timeout;
  unsigned retries = 0;
  std::string bearer_token_file;
  std::string ca_file{};
  std::string cert_file;
  std::string key_file;
  bool insecure = false;
  // Sent with every request (tenant headers such as X-Scope-OrgID); values are never logged.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string headers_file;  // "Name: value" lines, read at start (empty: none)
};

// NETSCORE_NODE_LABEL=auto: labels that carry the node name on common layouts, in the order
// they are tried per series (the original plugin's, kube-prometheus/OpenShift's relabelled
// `node`/`instance`).
inline const std::vector<std::string>& auto_node_labels() {
  static const std::vector<std::string> labels{"kubernetes_node", "node", "nodename", "instance"};
  return labels;
}

struct QueryConfig {
  QueryMode mode = QueryMode::label;
  QueryFunction function = QueryFunction::rate;
  std::string metric;
  std::string interface;
  bool interface_regex = false;
  PromDuration time_range;
  std::string node_label;                // the first of node_labels: custom mode's {node_label}
  std::vector<std::string> node_labels;  // tried in order per series (label mode)
  std::string custom_template;
  // The transmit counter, read with the same device and node labels.
  std::string transmit_metric = "node_network_transmit_bytes_total";
  // Link speed gauge in bytes/s (node-exporter: -1 or absent when unknown).
  std::string speed_metric = "node_network_speed_bytes";
  ScoreBasis basis = ScoreBasis::raw;
  Direction direction = Direction::receive;
  // Link speed in bytes/s assumed for nodes whose speed series is absent or not positive;
  // 0: none, such nodes are scored on the raw basis.
  double fallback_speed = 0;
};

// Memory per /explain record: a decision, and a node of one (the extender's decision log asserts
// them; the options' help quotes them).
inline constexpr std::size_t kExplainDecisionBytes = 440;
inline constexpr std::size_t kExplainNodeBytes = 250;

struct ExtenderConfig {
  std::string listen_host;
  std::uint16_t listen_port = 0;
  std::string url_prefix;
  unsigned threads = 1;
  std::size_t body_limit = 0;
  PromDuration header_timeout;
  PromDuration idle_timeout;
  unsigned max_connections = 0;
  Normalisation normalisation = Normalisation::request;
  int neutral_score = 0;
  // How long prioritize remembers the node it recommended for a pod of a workload (0: off).
  PromDuration spread_window;
  StalePolicy stale_policy = StalePolicy::fail_open;
  // Second, read-only listener (/metrics, /healthz, /readyz, /table); off when metrics_host is
  // empty.
  std::string metrics_host;
  std::uint16_t metrics_port = 0;
  // The /explain decision log: decisions kept, and per-node records shared by them (0: off).
  // Each takes kExplainDecisionBytes or kExplainNodeBytes.
  std::uint32_t explain_decisions = 0;
  std::uint32_t explain_nodes = 0;
};

// The Kubernetes API watcher (collector). `url` empty after loading: watching is off.
struct KubeConfig {
  KubeWatch watch = KubeWatch::automatic;
  std::string
      url;  // NETSCORE_KUBE_API_URL, else https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
  std::string token_file{};
  std::string ca_file{};
  bool insecure = false;
  bool correction = true;
  model::WorkloadLearning learn_workloads = model::WorkloadLearning::without_pod_traffic;
  double pod_receive_rate = 0;   // bytes/s expected of a placed pod when nothing better is known
  double pod_transmit_rate = 0;  // the same for its transmit traffic
};

// Traffic per pod from cAdvisor's series (collector).
struct PodTrafficConfig {
  bool enabled = true;
  std::optional<PromDuration> interval;  // unset ("auto"): pod_traffic_interval() derives it
  // The range of the recent pods' read; unset ("auto"): pod_traffic_recent_range() derives it.
  std::optional<PromDuration> recent_range;
};

// Nominating the pod a descheduler evicts from an over-utilised node (collector): the
// descheduler's LowNodeUtilization deviation thresholds and DefaultEvictor minPodAge.
struct RebalanceConfig {
  bool label = false;
  RebalanceFigure figure = RebalanceFigure::relative;
  double target_points = 22;
  double low_points = 10;
  PromDuration min_pod_age;
  // Unset ("auto"): rebalance_rest() derives it.
  std::optional<PromDuration> rest;
  // The range of the rates the descheduler's utilisation and the nomination read; unset ("auto"):
  // rebalance_window() derives it.
  std::optional<PromDuration> window;
};

// Every field is set from its variable's documented default, then the environment, then flags.
struct Config {
  LogLevel log_level = LogLevel::info;
  LogFormat log_format = LogFormat::text;
  ShmConfig shm;
  PromDuration max_age;
  PromDuration refresh_interval;
  PromDuration recheck_interval;  // link speeds, node-label layout, recording rules
  PodTrafficConfig pod_traffic;
  PrometheusConfig prometheus;
  QueryConfig query;
  ExtenderConfig extender;
  LabelRules label_rules;
  KubeConfig kube;
  RebalanceConfig rebalance;
};

}  // namespace netscore
