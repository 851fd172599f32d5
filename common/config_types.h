#pragma once

#include <chrono>
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

struct ShmConfig {
  std::string name = "netscore";
  std::uint32_t capacity = 16384;
  // Readable by the collector's UID only; the extender runs as the same UID and refuses a table
  // another UID owns, so no other process can feed it scores.
  unsigned mode = 0600;
};

struct PrometheusConfig {
  std::string url;
  PromDuration connect_timeout;  // derived: a fifth of `timeout`
  PromDuration timeout;
  // Two: a refresh rides out a restarting Prometheus or one dropped connection, and three
  // attempts with their backoff still end well before the next refresh is due.
  unsigned retries = 2;
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
  bool interface_regex = false;  // derived from `interface`: interface_is_regex()
  PromDuration time_range;
  std::string node_label;                // the first of node_labels: custom mode's {node_label}
  std::vector<std::string> node_labels;  // tried in order per series (label mode)
  std::string custom_template;
  // The transmit counter, read with the same device and node labels; derived from `metric`:
  // transmit_metric_for().
  std::string transmit_metric = "node_network_transmit_bytes_total";
  // Link speed gauge in bytes/s (node-exporter: -1 or absent when unknown); node-exporter's name,
  // which no layout renames: NETSCORE_FALLBACK_LINK_SPEED covers nodes without it.
  std::string speed_metric = "node_network_speed_bytes";
  ScoreBasis basis = ScoreBasis::raw;
  Direction direction = Direction::receive;
  // Link speed in bytes/s assumed for nodes whose speed series is absent or not positive;
  // 0: none, such nodes are scored on the raw basis.
  double fallback_speed = 0;
};

// Memory per /explain record: a decision, and a node of one (the extender's decision log asserts
// them).
inline constexpr std::size_t kExplainDecisionBytes = 440;
inline constexpr std::size_t kExplainNodeBytes = 250;
// Connections one server thread serves at once; more are closed.
inline constexpr unsigned kConnectionsPerThread = 1024;

struct ExtenderConfig {
  std::string listen_host;
  std::uint16_t listen_port = 0;
  unsigned threads = 1;
  // 5000 full Nodes (a scheduler without nodeCacheCapable) are about 20 MB.
  std::size_t body_limit = std::size_t{32} << 20;
  // A whole request's time to arrive, and a keep-alive connection's idle time: above the
  // scheduler client's 90 s, so the client, not the extender, closes an idle connection.
  PromDuration header_timeout{.value = std::chrono::seconds(10), .text = "10s"};
  PromDuration idle_timeout{.value = std::chrono::seconds(120), .text = "120s"};
  unsigned max_connections = kConnectionsPerThread;  // derived: kConnectionsPerThread a thread
  Normalisation normalisation = Normalisation::request;
  // The middle of 0..10: a node netscore knows nothing of is neither favoured nor avoided, and
  // the other plugins decide.
  int neutral_score = 5;
  // How long prioritize remembers the node it recommended for a pod of a workload (0: off).
  PromDuration spread_window;
  StalePolicy stale_policy = StalePolicy::fail_open;
  // Second, read-only listener (/metrics, /healthz, /readyz, /table); off when metrics_host is
  // empty.
  std::string metrics_host;
  std::uint16_t metrics_port = 0;
  // The /explain decision log: decisions kept, and per-node records shared by them (0: off, for
  // the benchmarks). Each takes kExplainDecisionBytes or kExplainNodeBytes: 1.7 and 7.8 MiB, an
  // hour of a busy scheduler's decisions with eight nodes recorded for each.
  std::uint32_t explain_decisions = 4096;
  std::uint32_t explain_nodes = 32768;
};

// The Kubernetes API watcher (collector). `url` empty after loading: watching is off.
struct KubeConfig {
  std::string
      url;  // NETSCORE_KUBE_API_URL, else https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
  std::string token_file{};
  std::string ca_file{};
  bool correction = true;
  model::WorkloadLearning learn_workloads = model::WorkloadLearning::without_pod_traffic;
  // Bytes/s expected of a placed pod when neither its annotations nor measured or learned traffic
  // say: small, so that an unknown pod barely moves a node's score until Prometheus shows it.
  double pod_receive_rate = 1024;
  double pod_transmit_rate = 1024;  // the same for its transmit traffic
};

// Traffic per pod from cAdvisor's series (collector).
// How often and over which range: pod_traffic_interval() and pod_traffic_recent_range().
struct PodTrafficConfig {
  bool enabled = true;
};

// Nominating the pod a descheduler evicts from an over-utilised node (collector): the
// descheduler's LowNodeUtilization deviation thresholds and DefaultEvictor minPodAge.
struct RebalanceConfig {
  bool label = false;
  RebalanceFigure figure = RebalanceFigure::relative;
  double target_points = 22;
  double low_points = 0;
  PromDuration min_pod_age;
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
  // Link speeds, node-label layout, recording rules; derived: kRefreshesPerRecheck refreshes.
  PromDuration recheck_interval;
  PodTrafficConfig pod_traffic;
  PrometheusConfig prometheus;
  QueryConfig query;
  ExtenderConfig extender;
  LabelRules label_rules;
  KubeConfig kube;
  RebalanceConfig rebalance;
};

}  // namespace netscore
