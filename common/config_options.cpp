#include "common/config_options.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include "common/config_values.h"

namespace netscore {

template <class E, std::size_t N>
std::string_view name_of(E value, const std::array<std::pair<std::string_view, E>, N>& names) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

constexpr std::array<std::pair<std::string_view, Normalisation>, 3> kNormalisations{
    {{"request", Normalisation::request},
     {"range", Normalisation::range},
     {"cluster", Normalisation::cluster}}};

std::string_view normalisation_name(Normalisation mode) {
  return name_of(mode, kNormalisations);
}

constexpr std::array<std::pair<std::string_view, ScoreBasis>, 2> kScoreBases{
    {{"raw", ScoreBasis::raw}, {"utilisation", ScoreBasis::utilisation}}};
constexpr std::array<std::pair<std::string_view, Direction>, 3> kDirections{
    {{"receive", Direction::receive}, {"transmit", Direction::transmit}, {"max", Direction::max}}};

std::string_view score_basis_name(ScoreBasis basis) {
  return name_of(basis, kScoreBases);
}

std::string_view direction_name(Direction direction) {
  return name_of(direction, kDirections);
}

namespace {

// "auto" leaves `field` unset, for the default derived from other settings; anything else is a
// duration.
void set_duration_or_auto(std::optional<PromDuration>& field, std::string_view v) {
  if (v == "auto") {
    field.reset();
  } else {
    field = parse_duration(v);
  }
}

// Help that quotes a size the code defines.
const std::string kExplainDecisionsHelp = "filter/prioritize decisions kept for GET /explain, " +
                                          std::to_string(kExplainDecisionBytes) +
                                          " bytes each (0: /explain off)";
const std::string kExplainNodesHelp = "per-node records those decisions share, " +
                                      std::to_string(kExplainNodeBytes) +
                                      " bytes each; the oldest are overwritten first";

const std::array kOptionTable{
    Option{"NETSCORE_LOG_LEVEL", "info", kBoth, "trace, debug, info, warn, error or off",
           [](Config& c, std::string_view v) {
             c.log_level = parse_enum(v, std::array<std::pair<std::string_view, LogLevel>, 6>{
                                             {{"trace", LogLevel::trace},
                                              {"debug", LogLevel::debug},
                                              {"info", LogLevel::info},
                                              {"warn", LogLevel::warn},
                                              {"error", LogLevel::error},
                                              {"off", LogLevel::off}}});
           }},
    Option{"NETSCORE_LOG_FORMAT", "text", kBoth,
           "text: timestamp level logger message; json: one JSON object per line (time, level, "
           "logger, msg)",
           [](Config& c, std::string_view v) {
             c.log_format =
                 parse_enum(v, std::array<std::pair<std::string_view, LogFormat>, 2>{
                                   {{"text", LogFormat::text}, {"json", LogFormat::json}}});
           }},
    Option{"NETSCORE_SHM_NAME", "netscore", kBoth,
           "POSIX shared-memory name of the score table (/dev/shm/<name>)",
           [](Config& c, std::string_view v) { c.shm.name = parse_shm_name(v); }},
    Option{"NETSCORE_MAX_NODES", "16384", kCollector,
           "most nodes the table holds; more are counted as overflow",
           [](Config& c, std::string_view v) {
             c.shm.capacity = parse_in_range<std::uint32_t>(v, 1, 1U << 20, "a node count");
           }},
    Option{"NETSCORE_SHM_MODE", "0600", kCollector,
           "file mode the collector creates the table with",
           [](Config& c, std::string_view v) { c.shm.mode = parse_mode(v); }},
    Option{"NETSCORE_SHM_ALLOW_FOREIGN_OWNER", "false", kExtender,
           "attach to a table owned by another UID (off: such a table is refused)",
           [](Config& c, std::string_view v) { c.shm.allow_foreign_owner = parse_bool(v); }},
    Option{"NETSCORE_MAX_AGE", "1m", kExtender,
           "table older than this (or collector failing that long) is stale: neutral scores, "
           "/readyz 503 (not /readyz?exclude=table)",
           [](Config& c, std::string_view v) { c.max_age = parse_duration(v); }},
    Option{"NETSCORE_REFRESH_INTERVAL", "15s", kCollector,
           "how often the collector queries Prometheus",
           [](Config& c, std::string_view v) { c.refresh_interval = parse_duration(v); }},
    Option{"NETSCORE_RECHECK_INTERVAL", "10m", kCollector,
           "how often the collector re-asks, in a request of its own, what its refresh query "
           "relies on and what rarely changes: link speeds, which NETSCORE_NODE_LABEL candidate "
           "the series carry, the recording rules it reads (also at once when an answer "
           "contradicts them, and speeds for a node seen first)",
           [](Config& c, std::string_view v) { c.recheck_interval = parse_duration(v); }},
    Option{"NETSCORE_POD_TRAFFIC", "true", kCollector,
           "read each pod's receive and transmit bytes/s from cAdvisor's "
           "container_network_*_bytes_total (kubelet's /metrics/cadvisor) where Prometheus has "
           "them with pod labels; checked at every NETSCORE_RECHECK_INTERVAL, and at every "
           "NETSCORE_POD_TRAFFIC_INTERVAL while none are found",
           [](Config& c, std::string_view v) { c.pod_traffic.enabled = parse_bool(v); }},
    Option{"NETSCORE_POD_TRAFFIC_INTERVAL", "auto", kCollector,
           "how often the collector reads the traffic of every pod (one request per direction, "
           "rates over NETSCORE_TIME_RANGE); auto: every four NETSCORE_REFRESH_INTERVALs or "
           "more, so that the per-pod reads take no longer per refresh, on average, than the "
           "refresh's own query (measured; at least once an hour)",
           [](Config& c, std::string_view v) { set_duration_or_auto(c.pod_traffic.interval, v); }},
    Option{
        "NETSCORE_POD_TRAFFIC_RECENT_RANGE", "auto", kCollector,
        "range of the read, every refresh, of the pods placed within NETSCORE_TIME_RANGE "
        "that the last read of every pod does not price (the slope of their samples, "
        "measurable from a pod's second scrape); set it to two to four scrape intervals of "
        "kubelet's cAdvisor target; auto: four NETSCORE_REFRESH_INTERVALs, at least 1m, at "
        "most NETSCORE_TIME_RANGE",
        [](Config& c, std::string_view v) { set_duration_or_auto(c.pod_traffic.recent_range, v); }},
    Option{"NETSCORE_PROMETHEUS_URL", "http://127.0.0.1:9090", kCollector,
           "Prometheus base URL; user:password@ in it is sent as basic auth",
           [](Config& c, std::string_view v) { c.prometheus.url = parse_url(v); }},
    Option{"NETSCORE_PROMETHEUS_CONNECT_TIMEOUT", "2s", kCollector,
           "TCP/TLS connect timeout per attempt",
           [](Config& c, std::string_view v) { c.prometheus.connect_timeout = parse_duration(v); }},
    Option{"NETSCORE_PROMETHEUS_TIMEOUT", "10s", kCollector, "total timeout of one query attempt",
           [](Config& c, std::string_view v) { c.prometheus.timeout = parse_duration(v); }},
    Option{"NETSCORE_PROMETHEUS_RETRIES", "2", kCollector,
           "extra attempts within one refresh, with backoff",
           [](Config& c, std::string_view v) {
             c.prometheus.retries = parse_in_range<unsigned>(v, 0, 10, "a count");
           }},
    Option{"NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE", "", kCollector,
           "file holding a bearer token, re-read when it changes (empty: none)",
           [](Config& c, std::string_view v) { c.prometheus.bearer_token_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_CA_FILE", "", kCollector, "CA bundle for https (empty: system CAs)",
           [](Config& c, std::string_view v) { c.prometheus.ca_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_CERT_FILE", "", kCollector,
           "client certificate for mTLS (empty: none)",
           [](Config& c, std::string_view v) { c.prometheus.cert_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_KEY_FILE", "", kCollector, "client key for mTLS (empty: none)",
           [](Config& c, std::string_view v) { c.prometheus.key_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_INSECURE", "false", kCollector, "skip TLS certificate verification",
           [](Config& c, std::string_view v) { c.prometheus.insecure = parse_bool(v); }},
    Option{"NETSCORE_PROMETHEUS_HEADERS", "", kCollector,
           "extra request headers as Name=value,Name=value (e.g. X-Scope-OrgID=tenant1); "
           "values are never logged",
           [](Config& c, std::string_view v) { c.prometheus.headers = parse_headers(v); }},
    Option{"NETSCORE_PROMETHEUS_HEADERS_FILE", "", kCollector,
           "file of extra request headers, one \"Name: value\" per line, "
           "read at start (keeps secrets out of the environment; empty: none)",
           [](Config& c, std::string_view v) { c.prometheus.headers_file = std::string(v); }},
    Option{
        "NETSCORE_QUERY_MODE", "label", kCollector,
        "label: node name from NETSCORE_NODE_LABEL; uname: joined via node_uname_info{nodename}; "
        "custom: NETSCORE_QUERY_TEMPLATE",
        [](Config& c, std::string_view v) {
          c.query.mode = parse_enum(v, std::array<std::pair<std::string_view, QueryMode>, 3>{
                                           {{"label", QueryMode::label},
                                            {"uname", QueryMode::uname},
                                            {"custom", QueryMode::custom}}});
        }},
    Option{"NETSCORE_PROFILE", "default", kCollector,
           "default: every setting as documented here; plugin: the original NetworkTraffic "
           "plugin's exact scores, i.e. NETSCORE_QUERY_FUNCTION=sum_over_time, "
           "NETSCORE_SCORE_BASIS=raw and NETSCORE_DIRECTION=receive (any of those set as well "
           "overrides the profile)",
           [](Config& c, std::string_view v) {
             if (v == "default") return;
             if (v != "plugin") throw BadValue{"default or plugin"};
             c.query.function = QueryFunction::sum_over_time;
             c.query.basis = ScoreBasis::raw;
             c.query.direction = Direction::receive;
           }},
    Option{"NETSCORE_QUERY_FUNCTION", "rate", kCollector,
           "rate (current traffic, bytes/s), increase, or sum_over_time (the original plugin's "
           "exact scores: it sums counter values, so it ranks nodes by bytes since boot)",
           [](Config& c, std::string_view v) {
             c.query.function =
                 parse_enum(v, std::array<std::pair<std::string_view, QueryFunction>, 3>{
                                   {{"sum_over_time", QueryFunction::sum_over_time},
                                    {"rate", QueryFunction::rate},
                                    {"increase", QueryFunction::increase}}});
           }},
    Option{"NETSCORE_RECEIVE_METRIC", "node_network_receive_bytes_total", kCollector,
           "receive counter metric to score by (a recording rule's name with ':' works)",
           [](Config& c, std::string_view v) { c.query.metric = parse_metric_name(v); }},
    Option{"NETSCORE_INTERFACE", "ens192", kCollector,
           "network device label value (the original plugin's default); a leading ! selects "
           "every device but those (!lo|veth.+ with NETSCORE_INTERFACE_REGEX=true is what "
           "node-exporter's *_physical recording rules sum)",
           [](Config& c, std::string_view v) { c.query.interface = parse_interface(v); }},
    Option{"NETSCORE_INTERFACE_REGEX", "false", kCollector,
           "treat NETSCORE_INTERFACE as a regex (device=~)",
           [](Config& c, std::string_view v) { c.query.interface_regex = parse_bool(v); }},
    Option{"NETSCORE_TIME_RANGE", "5m", kCollector, "range of the sum_over_time/rate window",
           [](Config& c, std::string_view v) { c.query.time_range = parse_duration(v); }},
    Option{"NETSCORE_NODE_LABEL", "auto", kCollector,
           "series label holding the node name (label mode); a comma-separated list is tried in "
           "order per series; auto: kubernetes_node,node,nodename,instance",
           [](Config& c, std::string_view v) { parse_node_labels(v, c.query); }},
    Option{"NETSCORE_QUERY_TEMPLATE", "", kCollector,
           "custom mode: PromQL with {interface} {range} {node_label} placeholders, "
           "one series per node labelled by NETSCORE_NODE_LABEL",
           [](Config& c, std::string_view v) { c.query.custom_template = std::string(v); }},
    Option{"NETSCORE_TRANSMIT_METRIC", "node_network_transmit_bytes_total", kCollector,
           "transmit counter, read with NETSCORE_RECEIVE_METRIC's device and node labels",
           [](Config& c, std::string_view v) { c.query.transmit_metric = parse_metric_name(v); }},
    Option{"NETSCORE_SPEED_METRIC", "node_network_speed_bytes", kCollector,
           "link speed gauge in bytes/s (node-exporter reports -1 or nothing for virtual devices)",
           [](Config& c, std::string_view v) { c.query.speed_metric = parse_metric_name(v); }},
    Option{"NETSCORE_SCORE_BASIS", "utilisation", kCollector,
           "raw: score the query's value (bytes, the plugin's); utilisation: score the rate over "
           "the window divided by the node's link speed",
           [](Config& c, std::string_view v) { c.query.basis = parse_enum(v, kScoreBases); }},
    Option{"NETSCORE_DIRECTION", "max", kCollector,
           "receive, transmit, or max (the busier of the two on each node)",
           [](Config& c, std::string_view v) { c.query.direction = parse_enum(v, kDirections); }},
    Option{"NETSCORE_FALLBACK_LINK_SPEED", "", kCollector,
           "utilisation basis: link speed in bytes/s (a number or a quantity such as 125M) "
           "assumed where a node's speed series is absent or not positive (off: such nodes are "
           "scored on the raw basis, among themselves)",
           [](Config& c, std::string_view v) { c.query.fallback_speed = parse_speed(v); }},
    Option{"NETSCORE_LISTEN", "127.0.0.1:8888", kExtender, "extender listen address (host:port)",
           [](Config& c, std::string_view v) {
             auto [host, port] = parse_host_port(v);
             c.extender.listen_host = std::move(host);
             c.extender.listen_port = port;
           }},
    Option{"NETSCORE_METRICS_LISTEN", "", kExtender,
           "optional second address (host:port) serving only /metrics, /healthz, "
           "/readyz and /table, for Prometheus and probes while NETSCORE_LISTEN stays on loopback "
           "(off)",
           [](Config& c, std::string_view v) {
             c.extender.metrics_host.clear();
             c.extender.metrics_port = 0;
             if (v.empty() || is_off(v)) return;
             auto [host, port] = parse_host_port(v);
             c.extender.metrics_host = std::move(host);
             c.extender.metrics_port = port;
           }},
    Option{"NETSCORE_EXPLAIN_DECISIONS", "4096", kExtender, kExplainDecisionsHelp,
           [](Config& c, std::string_view v) {
             c.extender.explain_decisions =
                 is_off(v) ? 0 : parse_in_range<std::uint32_t>(v, 0, 1U << 20, "a decision count");
           }},
    Option{"NETSCORE_EXPLAIN_NODES", "32768", kExtender, kExplainNodesHelp,
           [](Config& c, std::string_view v) {
             c.extender.explain_nodes =
                 parse_in_range<std::uint32_t>(v, 1, 1U << 24, "a node record count");
           }},
    Option{"NETSCORE_URL_PREFIX", "", kExtender,
           "path before /filter and /prioritize, e.g. /netscore",
           [](Config& c, std::string_view v) { c.extender.url_prefix = parse_url_prefix(v); }},
    Option{"NETSCORE_THREADS", "1", kExtender, "server threads (0: one per hardware thread)",
           [](Config& c, std::string_view v) {
             c.extender.threads = parse_in_range<unsigned>(v, 0, 256, "a thread count");
             if (c.extender.threads == 0)
               c.extender.threads = std::max(1U, std::thread::hardware_concurrency());
           }},
    Option{"NETSCORE_BODY_LIMIT", "33554432", kExtender,
           "largest request body in bytes, a number or a quantity such as 32Mi (5000 full Nodes "
           "~ 20 MB)",
           [](Config& c, std::string_view v) {
             c.extender.body_limit = parse_bytes(v, 1024, std::size_t{1} << 30);
           }},
    Option{"NETSCORE_REQUEST_TIMEOUT", "10s", kExtender,
           "time allowed to send a whole request (headers and body)",
           [](Config& c, std::string_view v) { c.extender.header_timeout = parse_duration(v); }},
    Option{"NETSCORE_IDLE_TIMEOUT", "120s", kExtender,
           "keep-alive idle timeout; keep it above the scheduler client's 90s",
           [](Config& c, std::string_view v) { c.extender.idle_timeout = parse_duration(v); }},
    Option{"NETSCORE_MAX_CONNECTIONS", "1024", kExtender,
           "connections served at once; more are closed",
           [](Config& c, std::string_view v) {
             c.extender.max_connections =
                 parse_in_range<unsigned>(v, 1, 1U << 20, "a connection count");
           }},
    Option{
        "NETSCORE_NORMALISATION", "request", kExtender,
        "request: normalise over the nodes in each request (the plugin's NormalizeScore); "
        "range: the whole 0..10 from the least (10) to the most (0) loaded node of each request; "
        "cluster: the collector's cluster-wide score",
        [](Config& c, std::string_view v) {
          c.extender.normalisation = parse_enum(v, kNormalisations);
        }},
    Option{"NETSCORE_SPREAD_WINDOW", "200ms", kExtender,
           "prioritize recommends one node (10) per pod and counts the pod there for the next pods "
           "(twice for pods of the same controlling owner, or without one, of the same "
           "app.kubernetes.io/name, at most two of which go to one node) until a snapshot "
           "published this long after shows the binding, so a burst of pods does not pile onto "
           "one node (off)",
           [](Config& c, std::string_view v) {
             c.extender.spread_window = v == "0" || is_off(v)
                                            ? PromDuration{.value = {}, .text = "off"}
                                            : parse_duration(v);
           }},
    Option{"NETSCORE_NEUTRAL_SCORE", "5", kExtender,
           "0..10 score for unknown nodes and stale tables",
           [](Config& c, std::string_view v) {
             c.extender.neutral_score = parse_in_range<int>(v, 0, 10, "a score");
           }},
    Option{"NETSCORE_LABEL_RULES", "", kBoth,
           "filter rules podAnnotation=value:nodeLabel=value separated by ';' (a pod annotated so "
           "may only go to nodes labelled so), e.g. type=space:kubernetes.io/role=edge; "
           "set the same in both containers",
           [](Config& c, std::string_view v) {
             try {
               c.label_rules = parse_label_rules(v);
             } catch (const LabelRuleError& e) {
               throw BadValue{std::string("rules podAnnotation=value:nodeLabel=value;...: ") +
                              e.what()};
             }
           }},
    Option{"NETSCORE_KUBE_WATCH", "auto", kCollector,
           "watch pods and nodes in the Kubernetes API: auto (on in a pod or when "
           "NETSCORE_KUBE_API_URL is set), true or false",
           [](Config& c, std::string_view v) {
             c.kube.watch = parse_enum(v, std::array<std::pair<std::string_view, KubeWatch>, 3>{
                                              {{"auto", KubeWatch::automatic},
                                               {"true", KubeWatch::on},
                                               {"false", KubeWatch::off}}});
           }},
    Option{"NETSCORE_KUBE_API_URL", "", kCollector,
           "Kubernetes API server URL (empty: in-cluster "
           "https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT)",
           [](Config& c, std::string_view v) {
             c.kube.url = v.empty() ? std::string() : parse_url(v);
           }},
    Option{"NETSCORE_KUBE_TOKEN_FILE", "", kCollector,
           "bearer token file, re-read when it changes (empty: the service-account token in a pod, "
           "none outside)",
           [](Config& c, std::string_view v) { c.kube.token_file = std::string(v); }},
    Option{"NETSCORE_KUBE_CA_FILE", "", kCollector,
           "CA bundle of the API server (empty: the service-account ca.crt in a pod, "
           "system CAs outside)",
           [](Config& c, std::string_view v) { c.kube.ca_file = std::string(v); }},
    Option{"NETSCORE_KUBE_INSECURE", "false", kCollector,
           "skip TLS verification of the Kubernetes API server",
           [](Config& c, std::string_view v) { c.kube.insecure = parse_bool(v); }},
    Option{"NETSCORE_CORRECTION", "true", kCollector,
           "count traffic that just-placed pods will add until Prometheus' window shows it (needs "
           "the watcher)",
           [](Config& c, std::string_view v) { c.kube.correction = parse_bool(v); }},
    Option{"NETSCORE_LEARN_WORKLOADS", "auto", kCollector,
           "learn each workload's traffic per pod, receive and transmit, from the node rates and "
           "the pods on each node, and expect that of its new pods where no measured traffic per "
           "pod prices them; auto: only while no per-pod series are read (NETSCORE_POD_TRAFFIC), "
           "whose measured workload means price better; false: such pods are priced at the "
           "cluster's measured traffic per pod",
           [](Config& c, std::string_view v) {
             c.kube.learn_workloads =
                 parse_enum(v, std::array<std::pair<std::string_view, model::WorkloadLearning>, 3>{
                                   {{"true", model::WorkloadLearning::on},
                                    {"false", model::WorkloadLearning::off},
                                    {"auto", model::WorkloadLearning::without_pod_traffic}}});
           }},
    Option{"NETSCORE_POD_RECEIVE_RATE", "1024", kCollector,
           "bytes/s (a number or a quantity such as 1Ki) a placed pod is expected to receive when "
           "neither its netscore.io/expected-receive-rate annotation nor the measured traffic per "
           "pod says",
           [](Config& c, std::string_view v) { c.kube.pod_receive_rate = parse_rate(v); }},
    Option{"NETSCORE_POD_TRANSMIT_RATE", "1024", kCollector,
           "bytes/s (a number or a quantity such as 1Ki) a placed pod is expected to transmit when "
           "neither its netscore.io/expected-transmit-rate annotation nor the measured transmit "
           "traffic per pod says (used when NETSCORE_DIRECTION is transmit or max)",
           [](Config& c, std::string_view v) { c.kube.pod_transmit_rate = parse_rate(v); }},
    Option{"NETSCORE_STALE_POLICY", "open", kExtender,
           "what /filter does when it cannot check a pod (stale table, "
           "node labels unknown): open passes the nodes; closed fails them with the reason",
           [](Config& c, std::string_view v) {
             c.extender.stale_policy = parse_enum(
                 v, std::array<std::pair<std::string_view, StalePolicy>, 2>{
                        {{"open", StalePolicy::fail_open}, {"closed", StalePolicy::fail_closed}}});
           }},
    Option{"NETSCORE_REBALANCE_LABEL", "false", kCollector,
           "label netscore.io/rebalance=evict on the one pod per over-utilised node whose move "
           "best cools it, and remove the label from pods no longer chosen (patches pods: needs "
           "the watcher and the patch verb on pods), for a descheduler whose DefaultEvictor "
           "labelSelector matches it (deploy/overlays/descheduler)",
           [](Config& c, std::string_view v) { c.rebalance.label = parse_bool(v); }},
    Option{"NETSCORE_REBALANCE_UTILISATION", "relative", kCollector,
           "the figure the descheduler's thresholds are points of, as its policy's query reads "
           "it: relative (node:netscore_link_utilisation:relative, the utilisation over twice the "
           "cluster's mean: the mean at 50 points at every load level) or absolute "
           "(node:netscore_link_utilisation:ratio, the utilisation itself)",
           [](Config& c, std::string_view v) {
             c.rebalance.figure =
                 parse_enum(v, std::array<std::pair<std::string_view, RebalanceFigure>, 2>{
                                   {{"relative", RebalanceFigure::relative},
                                    {"absolute", RebalanceFigure::absolute}}});
           }},
    Option{"NETSCORE_REBALANCE_TARGET_POINTS", "22", kCollector,
           "over-utilised: more than this many points (the figure x 100) above the nodes' mean; "
           "relative: 22 is 1.44x the mean; the descheduler's LowNodeUtilization targetThresholds "
           "with useDeviationThresholds",
           [](Config& c, std::string_view v) {
             c.rebalance.target_points = parse_in_range<double>(v, 0, 100, "points");
           }},
    Option{"NETSCORE_REBALANCE_LOW_POINTS", "10", kCollector,
           "under-utilised: at least this many points below the nodes' mean (nothing is nominated "
           "without such a node); relative: 10 is 0.8x the mean; the descheduler's thresholds "
           "with useDeviationThresholds",
           [](Config& c, std::string_view v) {
             c.rebalance.low_points = parse_in_range<double>(v, 0, 100, "points");
           }},
    Option{"NETSCORE_REBALANCE_MIN_POD_AGE", "20m", kCollector,
           "pods younger than this are not nominated: the descheduler's DefaultEvictor minPodAge",
           [](Config& c, std::string_view v) { c.rebalance.min_pod_age = parse_duration(v); }},
    Option{"NETSCORE_REBALANCE_REST", "auto", kCollector,
           "a workload whose nominated pod left (evicted) gets no other nominee for this long; "
           "auto: twenty NETSCORE_REFRESH_INTERVALs",
           [](Config& c, std::string_view v) { set_duration_or_auto(c.rebalance.rest, v); }},
    Option{"NETSCORE_REBALANCE_WINDOW", "auto", kCollector,
           "the range of the rates in the utilisation the descheduler reads and the nomination "
           "uses (--print-rules' recording rule), at least four of Prometheus' scrape intervals; "
           "auto: four NETSCORE_REFRESH_INTERVALs, at most NETSCORE_TIME_RANGE",
           [](Config& c, std::string_view v) { set_duration_or_auto(c.rebalance.window, v); }},
};

}  // namespace

// Old names that said less than their successors: a count of what (CAPACITY), a metric of which
// direction beside TRANSMIT_METRIC (METRIC), "scoring" beside SCORE_BASIS for what is the
// normalisation (SCORING), a header timeout that times the whole request (HEADER_TIMEOUT).
constexpr std::array kRenamed{
    Renamed{"NETSCORE_CAPACITY", "NETSCORE_MAX_NODES"},
    Renamed{"NETSCORE_METRIC", "NETSCORE_RECEIVE_METRIC"},
    Renamed{"NETSCORE_SCORING", "NETSCORE_NORMALISATION"},
    Renamed{"NETSCORE_HEADER_TIMEOUT", "NETSCORE_REQUEST_TIMEOUT"},
};

std::span<const Renamed> renamed_options() {
  return kRenamed;
}

std::span<const Option> config_options() {
  return kOptionTable;
}

}  // namespace netscore
