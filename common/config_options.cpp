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

constexpr Tier kEssential = Tier::essential;
constexpr Tier kAdvanced = Tier::advanced;

const std::array kOptionTable{
    Option{
        "NETSCORE_LOG_LEVEL", "info", kBoth, kEssential, "trace, debug, info, warn, error or off",
        "debug while setting netscore up or chasing a problem, warn once it runs quietly",
        [](Config& c, std::string_view v) {
          c.log_level = parse_enum(
              v, std::array<std::pair<std::string_view, LogLevel>, 6>{{{"trace", LogLevel::trace},
                                                                       {"debug", LogLevel::debug},
                                                                       {"info", LogLevel::info},
                                                                       {"warn", LogLevel::warn},
                                                                       {"error", LogLevel::error},
                                                                       {"off", LogLevel::off}}});
        }},
    Option{"NETSCORE_LOG_FORMAT", "text", kBoth, kAdvanced,
           "text: timestamp level logger message; json: one JSON object per line (time, level, "
           "logger, msg)",
           "json when a log pipeline (Loki, Elasticsearch) parses the containers' output",
           [](Config& c, std::string_view v) {
             c.log_format =
                 parse_enum(v, std::array<std::pair<std::string_view, LogFormat>, 2>{
                                   {{"text", LogFormat::text}, {"json", LogFormat::json}}});
           }},
    Option{"NETSCORE_SHM_NAME", "netscore", kBoth, kAdvanced,
           "POSIX shared-memory name of the score table (/dev/shm/<name>)",
           "only when several collector/extender pairs share one /dev/shm (the same value in both "
           "containers of a pair)",
           [](Config& c, std::string_view v) { c.shm.name = parse_shm_name(v); }},
    Option{"NETSCORE_MAX_NODES", "16384", kCollector, kAdvanced,
           "most nodes the table holds; more are counted as overflow",
           "when /metrics or the NetscoreTableOverflow alert reports overflow",
           [](Config& c, std::string_view v) {
             c.shm.capacity = parse_in_range<std::uint32_t>(v, 1, 1U << 20, "a node count");
           }},
    Option{"NETSCORE_MAX_AGE", "1m", kExtender, kAdvanced,
           "table older than this (or collector failing that long) is stale: neutral scores, "
           "/readyz 503 (not /readyz?exclude=table)",
           "after raising NETSCORE_REFRESH_INTERVAL: keep it at four refreshes or more",
           [](Config& c, std::string_view v) { c.max_age = parse_duration(v); }},
    Option{"NETSCORE_REFRESH_INTERVAL", "15s", kCollector, kEssential,
           "how often the collector queries Prometheus; the recheck of link speeds and layout "
           "(forty of these), the reads of the traffic per pod and the rebalance window and rest "
           "follow it",
           "to match Prometheus' scrape interval of node-exporter, or slower when the query is "
           "expensive",
           [](Config& c, std::string_view v) { c.refresh_interval = parse_duration(v); }},
    Option{"NETSCORE_POD_TRAFFIC", "true", kCollector, kAdvanced,
           "read each pod's receive and transmit bytes/s from cAdvisor's "
           "container_network_*_bytes_total (kubelet's /metrics/cadvisor) where Prometheus has "
           "them with pod labels, every four NETSCORE_REFRESH_INTERVALs or more (as long as the "
           "reads take, measured, at least once an hour), the pods placed within "
           "NETSCORE_TIME_RANGE every refresh over four refreshes (at least 1m)",
           "false when Prometheus is too slow for the per-pod reads or does not scrape cAdvisor",
           [](Config& c, std::string_view v) { c.pod_traffic.enabled = parse_bool(v); }},
    Option{"NETSCORE_PROMETHEUS_URL", "http://127.0.0.1:9090", kCollector, kEssential,
           "Prometheus base URL; user:password@ in it is sent as basic auth",
           "always: your Prometheus (a path prefix works: Thanos, VictoriaMetrics)",
           [](Config& c, std::string_view v) { c.prometheus.url = parse_url(v); }},
    Option{"NETSCORE_PROMETHEUS_TIMEOUT", "10s", kCollector, kAdvanced,
           "total timeout of one query attempt; connecting may take a fifth of it; a refresh "
           "retries twice, with backoff",
           "when --check or the log reports timeouts and the query cannot be made cheaper",
           [](Config& c, std::string_view v) { c.prometheus.timeout = parse_duration(v); }},
    Option{"NETSCORE_PROMETHEUS_BEARER_TOKEN_FILE", "", kCollector, kEssential,
           "file holding a bearer token, re-read when it changes (empty: none)",
           "when Prometheus wants a token (OpenShift, hosted Prometheus)",
           [](Config& c, std::string_view v) { c.prometheus.bearer_token_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_CA_FILE", "", kCollector, kAdvanced,
           "CA bundle for https (empty: system CAs)",
           "when Prometheus' https certificate is signed by a private CA",
           [](Config& c, std::string_view v) { c.prometheus.ca_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_CERT_FILE", "", kCollector, kAdvanced,
           "client certificate for mTLS (empty: none)",
           "when Prometheus requires client certificates (with NETSCORE_PROMETHEUS_KEY_FILE)",
           [](Config& c, std::string_view v) { c.prometheus.cert_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_KEY_FILE", "", kCollector, kAdvanced,
           "client key for mTLS (empty: none)",
           "with NETSCORE_PROMETHEUS_CERT_FILE, when Prometheus requires client certificates",
           [](Config& c, std::string_view v) { c.prometheus.key_file = std::string(v); }},
    Option{"NETSCORE_PROMETHEUS_INSECURE", "false", kCollector, kAdvanced,
           "skip TLS certificate verification",
           "only to try out an https Prometheus whose CA you do not have yet",
           [](Config& c, std::string_view v) { c.prometheus.insecure = parse_bool(v); }},
    Option{"NETSCORE_PROMETHEUS_HEADERS", "", kCollector, kAdvanced,
           "extra request headers as Name=value,Name=value (e.g. X-Scope-OrgID=tenant1); "
           "values are never logged",
           "when a multi-tenant Prometheus (Mimir, Cortex, Thanos) wants a tenant header",
           [](Config& c, std::string_view v) { c.prometheus.headers = parse_headers(v); }},
    Option{"NETSCORE_PROMETHEUS_HEADERS_FILE", "", kCollector, kAdvanced,
           "file of extra request headers, one \"Name: value\" per line, "
           "read at start (keeps secrets out of the environment; empty: none)",
           "when a header carries a secret that should come from a mounted Secret",
           [](Config& c, std::string_view v) { c.prometheus.headers_file = std::string(v); }},
    Option{
        "NETSCORE_QUERY_MODE", "label", kCollector, kAdvanced,
        "label: node name from NETSCORE_NODE_LABEL; uname: joined via node_uname_info{nodename}; "
        "custom: NETSCORE_QUERY_TEMPLATE",
        "when --check says no series label holds the node name (uname), or for a layout no "
        "setting covers (custom)",
        [](Config& c, std::string_view v) {
          c.query.mode = parse_enum(v, std::array<std::pair<std::string_view, QueryMode>, 3>{
                                           {{"label", QueryMode::label},
                                            {"uname", QueryMode::uname},
                                            {"custom", QueryMode::custom}}});
        }},
    Option{"NETSCORE_PROFILE", "default", kCollector, kAdvanced,
           "default: every setting as documented here; plugin: the original NetworkTraffic "
           "plugin's exact scores, i.e. NETSCORE_QUERY_FUNCTION=sum_over_time, "
           "NETSCORE_SCORE_BASIS=raw and NETSCORE_DIRECTION=receive (any of those set as well "
           "overrides the profile)",
           "plugin when you need the original plugin's exact scores, e.g. to compare",
           [](Config& c, std::string_view v) {
             if (v == "default") return;
             if (v != "plugin") throw BadValue{"default or plugin"};
             c.query.function = QueryFunction::sum_over_time;
             c.query.basis = ScoreBasis::raw;
             c.query.direction = Direction::receive;
           }},
    Option{"NETSCORE_QUERY_FUNCTION", "rate", kCollector, kAdvanced,
           "rate (current traffic, bytes/s), increase, or sum_over_time (the original plugin's "
           "exact scores: it sums counter values, so it ranks nodes by bytes since boot)",
           "rarely: NETSCORE_PROFILE=plugin sets sum_over_time with the rest of the plugin's "
           "scoring",
           [](Config& c, std::string_view v) {
             c.query.function =
                 parse_enum(v, std::array<std::pair<std::string_view, QueryFunction>, 3>{
                                   {{"sum_over_time", QueryFunction::sum_over_time},
                                    {"rate", QueryFunction::rate},
                                    {"increase", QueryFunction::increase}}});
           }},
    Option{"NETSCORE_RECEIVE_METRIC", "node_network_receive_bytes_total", kCollector, kEssential,
           "receive counter metric to score by (a recording rule's name with ':' works); the "
           "transmit counter is the same name with receive replaced by transmit "
           "(node_network_transmit_bytes_total when the name has no receive)",
           "when your Prometheus keeps node traffic under another name, e.g. a recording rule",
           [](Config& c, std::string_view v) { c.query.metric = parse_metric_name(v); }},
    Option{"NETSCORE_INTERFACE", "ens192", kCollector, kEssential,
           "network device label value (the original plugin's default); a value with one of "
           "|*+?()[]{}^$\\ is a regex (device=~), a leading ! selects every device but those "
           "(!lo|veth.+ is what node-exporter's *_physical recording rules sum)",
           "always: the nodes' uplink as node-exporter names it (--check lists the devices)",
           [](Config& c, std::string_view v) { c.query.interface = parse_interface(v); }},
    Option{"NETSCORE_TIME_RANGE", "5m", kCollector, kAdvanced,
           "range of the sum_over_time/rate window",
           "shorter to follow traffic faster, longer to smooth bursts; at least four of "
           "Prometheus' scrape intervals",
           [](Config& c, std::string_view v) { c.query.time_range = parse_duration(v); }},
    Option{"NETSCORE_NODE_LABEL", "auto", kCollector, kEssential,
           "series label holding the node name (label mode); a comma-separated list is tried in "
           "order per series; auto: kubernetes_node,node,nodename,instance",
           "when --check says the node names are under another label, or to save the query's "
           "label chain once you know the one",
           [](Config& c, std::string_view v) { parse_node_labels(v, c.query); }},
    Option{"NETSCORE_QUERY_TEMPLATE", "", kCollector, kAdvanced,
           "custom mode: PromQL with {interface} {range} {node_label} placeholders, "
           "one series per node labelled by NETSCORE_NODE_LABEL",
           "with NETSCORE_QUERY_MODE=custom, for a layout the other settings do not cover",
           [](Config& c, std::string_view v) { c.query.custom_template = std::string(v); }},
    Option{"NETSCORE_SCORE_BASIS", "utilisation", kCollector, kAdvanced,
           "raw: score the query's value (bytes, the plugin's); utilisation: score the rate over "
           "the window divided by the node's link speed (node-exporter's "
           "node_network_speed_bytes)",
           "raw when the nodes' links differ and you want bytes compared, not how full each is",
           [](Config& c, std::string_view v) { c.query.basis = parse_enum(v, kScoreBases); }},
    Option{"NETSCORE_DIRECTION", "max", kCollector, kAdvanced,
           "receive, transmit, or max (the busier of the two on each node)",
           "receive or transmit when only one direction limits your workloads",
           [](Config& c, std::string_view v) { c.query.direction = parse_enum(v, kDirections); }},
    Option{"NETSCORE_FALLBACK_LINK_SPEED", "", kCollector, kEssential,
           "utilisation basis: link speed in bytes/s (a number or a quantity such as 125M) "
           "assumed where a node's speed series is absent or not positive (off: such nodes are "
           "scored on the raw basis, among themselves)",
           "when nodes report no link speed (virtual NICs): e.g. 125M for 1 Gb/s",
           [](Config& c, std::string_view v) { c.query.fallback_speed = parse_speed(v); }},
    Option{"NETSCORE_LISTEN", "127.0.0.1:8888", kExtender, kEssential,
           "extender listen address (host:port)",
           "when the port is taken on the node, or the scheduler reaches the extender over the "
           "network (keep it on loopback otherwise)",
           [](Config& c, std::string_view v) {
             auto [host, port] = parse_host_port(v);
             c.extender.listen_host = std::move(host);
             c.extender.listen_port = port;
           }},
    Option{"NETSCORE_METRICS_LISTEN", "", kExtender, kAdvanced,
           "optional second address (host:port) serving only /metrics, /healthz, "
           "/readyz and /table, for Prometheus and probes while NETSCORE_LISTEN stays on loopback "
           "(off)",
           "when Prometheus or the kubelet's probes must reach the extender from off the node",
           [](Config& c, std::string_view v) {
             c.extender.metrics_host.clear();
             c.extender.metrics_port = 0;
             if (v.empty() || is_off(v)) return;
             auto [host, port] = parse_host_port(v);
             c.extender.metrics_host = std::move(host);
             c.extender.metrics_port = port;
           }},
    Option{"NETSCORE_THREADS", "1", kExtender, kAdvanced,
           "server threads (0: one per hardware thread); each takes up to 1024 connections",
           "when several schedulers call one extender and its request latency grows",
           [](Config& c, std::string_view v) {
             c.extender.threads = parse_in_range<unsigned>(v, 0, 256, "a thread count");
             if (c.extender.threads == 0)
               c.extender.threads = std::max(1U, std::thread::hardware_concurrency());
           }},
    Option{
        "NETSCORE_NORMALISATION", "request", kExtender, kAdvanced,
        "request: normalise over the nodes in each request (the plugin's NormalizeScore); "
        "range: the whole 0..10 from the least (10) to the most (0) loaded node of each request; "
        "cluster: the collector's cluster-wide score",
        "cluster when nearly idle nodes should not look as different as busy ones; range for "
        "the strongest steer",
        [](Config& c, std::string_view v) {
          c.extender.normalisation = parse_enum(v, kNormalisations);
        }},
    Option{"NETSCORE_SPREAD_WINDOW", "200ms", kExtender, kAdvanced,
           "prioritize recommends one node (10) per pod and counts the pod there for the next pods "
           "(twice for pods of the same controlling owner, or without one, of the same "
           "app.kubernetes.io/name, at most two of which go to one node) until a snapshot "
           "published this long after shows the binding, so a burst of pods does not pile onto "
           "one node (off)",
           "longer when the watch is slow to show bindings (a busy API server), off to compare "
           "without it",
           [](Config& c, std::string_view v) {
             c.extender.spread_window = v == "0" || is_off(v)
                                            ? PromDuration{.value = {}, .text = "off"}
                                            : parse_duration(v);
           }},
    Option{"NETSCORE_LABEL_RULES", "", kBoth, kEssential,
           "filter rules podAnnotation=value:nodeLabel=value separated by ';' (a pod annotated so "
           "may only go to nodes labelled so), e.g. type=space:kubernetes.io/role=edge; "
           "set the same in both containers",
           "when pods must stay on labelled nodes (add the filter verb to the scheduler's "
           "configuration)",
           [](Config& c, std::string_view v) {
             try {
               c.label_rules = parse_label_rules(v);
             } catch (const LabelRuleError& e) {
               throw BadValue{std::string("rules podAnnotation=value:nodeLabel=value;...: ") +
                              e.what()};
             }
           }},
    Option{"NETSCORE_KUBE_API_URL", "", kCollector, kAdvanced,
           "Kubernetes API server URL; the pods and nodes are watched in a pod or when this is "
           "set (empty: in-cluster https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT)",
           "only when the collector runs outside a pod (with NETSCORE_KUBE_TOKEN_FILE and "
           "NETSCORE_KUBE_CA_FILE)",
           [](Config& c, std::string_view v) {
             c.kube.url = v.empty() ? std::string() : parse_url(v);
           }},
    Option{"NETSCORE_KUBE_TOKEN_FILE", "", kCollector, kAdvanced,
           "bearer token file, re-read when it changes (empty: the service-account token in a pod, "
           "none outside)",
           "outside a pod, with NETSCORE_KUBE_API_URL",
           [](Config& c, std::string_view v) { c.kube.token_file = std::string(v); }},
    Option{"NETSCORE_KUBE_CA_FILE", "", kCollector, kAdvanced,
           "CA bundle of the API server (empty: the service-account ca.crt in a pod, "
           "system CAs outside)",
           "outside a pod, with NETSCORE_KUBE_API_URL, when the API server's CA is private",
           [](Config& c, std::string_view v) { c.kube.ca_file = std::string(v); }},
    Option{"NETSCORE_CORRECTION", "true", kCollector, kAdvanced,
           "count traffic that just-placed pods will add until Prometheus' window shows it (needs "
           "the watcher); a pod neither annotated (netscore.io/expected-receive-rate, "
           "expected-transmit-rate) nor measured nor learned counts 1 KiB/s each way",
           "false to keep the original plugin's scores from Prometheus alone",
           [](Config& c, std::string_view v) { c.kube.correction = parse_bool(v); }},
    Option{"NETSCORE_LEARN_WORKLOADS", "auto", kCollector, kAdvanced,
           "learn each workload's traffic per pod, receive and transmit, from the node rates and "
           "the pods on each node, and expect that of its new pods where no measured traffic per "
           "pod prices them; auto: only while no per-pod series are read (NETSCORE_POD_TRAFFIC), "
           "whose measured workload means price better; false: such pods are priced at the "
           "cluster's measured traffic per pod",
           "true to learn even beside per-pod series, false when workloads' pods differ too much "
           "for a mean",
           [](Config& c, std::string_view v) {
             c.kube.learn_workloads =
                 parse_enum(v, std::array<std::pair<std::string_view, model::WorkloadLearning>, 3>{
                                   {{"true", model::WorkloadLearning::on},
                                    {"false", model::WorkloadLearning::off},
                                    {"auto", model::WorkloadLearning::without_pod_traffic}}});
           }},
    Option{"NETSCORE_STALE_POLICY", "open", kExtender, kAdvanced,
           "what /filter does when it cannot check a pod (stale table, "
           "node labels unknown): open passes the nodes; closed fails them with the reason",
           "closed when a pod must never land on a node NETSCORE_LABEL_RULES or a ceiling "
           "would refuse, even if pods wait",
           [](Config& c, std::string_view v) {
             c.extender.stale_policy = parse_enum(
                 v, std::array<std::pair<std::string_view, StalePolicy>, 2>{
                        {{"open", StalePolicy::fail_open}, {"closed", StalePolicy::fail_closed}}});
           }},
    Option{"NETSCORE_REBALANCE_LABEL", "false", kCollector, kAdvanced,
           "label netscore.io/rebalance=evict on the pod per over-utilised node whose move best "
           "cools it (and a second while the first would leave the node hot), and remove the "
           "label from pods no longer chosen (patches pods: needs "
           "the watcher and the patch verb on pods), for a descheduler whose DefaultEvictor "
           "labelSelector matches it (deploy/overlays/descheduler)",
           "true when you run the descheduler overlay (its collector/ component sets it)",
           [](Config& c, std::string_view v) { c.rebalance.label = parse_bool(v); }},
    Option{"NETSCORE_REBALANCE_UTILISATION", "relative", kCollector, kAdvanced,
           "the figure the descheduler's thresholds are points of, as its policy's query reads "
           "it: relative (node:netscore_link_utilisation:relative, the link load over twice the "
           "cluster's mean, in the direction the cluster's traffic mostly goes with max: the mean "
           "at 50 points at every load level) or absolute "
           "(node:netscore_link_utilisation:ratio, the utilisation itself, clamped to 1)",
           "absolute when the descheduler policy reads node:netscore_link_utilisation:ratio "
           "(fixed lines in points of utilisation)",
           [](Config& c, std::string_view v) {
             c.rebalance.figure =
                 parse_enum(v, std::array<std::pair<std::string_view, RebalanceFigure>, 2>{
                                   {{"relative", RebalanceFigure::relative},
                                    {"absolute", RebalanceFigure::absolute}}});
           }},
    Option{"NETSCORE_REBALANCE_TARGET_POINTS", "22", kCollector, kAdvanced,
           "over-utilised: more than this many points (the figure x 100) above the nodes' mean; "
           "relative: 22 is 1.44x the mean; the descheduler's LowNodeUtilization targetThresholds "
           "with useDeviationThresholds",
           "together with the descheduler policy's targetThresholds, to move pods sooner or later",
           [](Config& c, std::string_view v) {
             c.rebalance.target_points = parse_in_range<double>(v, 0, 100, "points");
           }},
    Option{"NETSCORE_REBALANCE_LOW_POINTS", "0", kCollector, kAdvanced,
           "under-utilised: at least this many points below the nodes' mean (nothing is nominated "
           "without such a node); relative: 0 is at or under the mean, 5 at or under 0.9x it; the "
           "descheduler's thresholds with useDeviationThresholds",
           "together with the descheduler policy's thresholds",
           [](Config& c, std::string_view v) {
             c.rebalance.low_points = parse_in_range<double>(v, 0, 100, "points");
           }},
    Option{"NETSCORE_REBALANCE_MIN_POD_AGE", "20m", kCollector, kAdvanced,
           "pods younger than this are not nominated: the descheduler's DefaultEvictor minPodAge",
           "together with the descheduler policy's minPodAge",
           [](Config& c, std::string_view v) { c.rebalance.min_pod_age = parse_duration(v); }},
    Option{"NETSCORE_REBALANCE_WINDOW", "auto", kCollector, kAdvanced,
           "the range of the rates in the utilisation the descheduler reads and the nomination "
           "uses (--print-rules' recording rule), at least four of Prometheus' scrape intervals; "
           "auto: four NETSCORE_REFRESH_INTERVALs, at most NETSCORE_TIME_RANGE",
           "when Prometheus scrapes node-exporter less often than the refresh: four scrape "
           "intervals",
           [](Config& c, std::string_view v) { set_duration_or_auto(c.rebalance.window, v); }},
};

}  // namespace

// Renamed: old names that said less than their successors: a count of what (CAPACITY), a metric
// of which direction (METRIC), "scoring" beside SCORE_BASIS for what is the normalisation
// (SCORING). Retired: settings that only tuned what the rule quoted already decides well, or that
// no deployment needs to change; config.cpp's derive_settings applies the rules and config_types.h
// holds the fixed values.
constexpr std::array kRetired{
    Retired{"NETSCORE_CAPACITY", "NETSCORE_MAX_NODES", ""},
    Retired{"NETSCORE_METRIC", "NETSCORE_RECEIVE_METRIC", ""},
    Retired{"NETSCORE_SCORING", "NETSCORE_NORMALISATION", ""},
    Retired{"NETSCORE_RECHECK_INTERVAL", "",
            "link speeds, the node-label layout and the recording rules are re-asked every forty "
            "NETSCORE_REFRESH_INTERVALs (10m at the default 15s)"},
    Retired{"NETSCORE_POD_TRAFFIC_INTERVAL", "",
            "every pod's traffic is read every four NETSCORE_REFRESH_INTERVALs or more, as long as "
            "the reads take (measured), at least once an hour"},
    Retired{"NETSCORE_POD_TRAFFIC_RECENT_RANGE", "",
            "the recently placed pods are read over four NETSCORE_REFRESH_INTERVALs, at least 1m, "
            "at most NETSCORE_TIME_RANGE"},
    Retired{"NETSCORE_REBALANCE_REST", "",
            "a workload whose nominated pod left gets no other nominee for twenty "
            "NETSCORE_REFRESH_INTERVALs (5m at the default 15s: two of the descheduler's looks)"},
    Retired{"NETSCORE_PROMETHEUS_CONNECT_TIMEOUT", "",
            "connecting may take a fifth of NETSCORE_PROMETHEUS_TIMEOUT (2s at the default 10s)"},
    Retired{"NETSCORE_PROMETHEUS_RETRIES", "",
            "a failed query is retried twice within a refresh, with backoff from 200ms"},
    Retired{"NETSCORE_TRANSMIT_METRIC", "",
            "the transmit counter is NETSCORE_RECEIVE_METRIC with receive replaced by transmit "
            "(node_network_transmit_bytes_total when it has no receive)"},
    Retired{"NETSCORE_SPEED_METRIC", "",
            "link speeds are node-exporter's node_network_speed_bytes; "
            "NETSCORE_FALLBACK_LINK_SPEED covers nodes without it"},
    Retired{"NETSCORE_INTERFACE_REGEX", "",
            "NETSCORE_INTERFACE is a regex when it holds one of |*+?()[]{}^$\\"},
    Retired{"NETSCORE_POD_RECEIVE_RATE", "",
            "a placed pod neither annotated (netscore.io/expected-receive-rate) nor measured nor "
            "learned is expected to receive 1 KiB/s"},
    Retired{"NETSCORE_POD_TRANSMIT_RATE", "",
            "a placed pod neither annotated (netscore.io/expected-transmit-rate) nor measured nor "
            "learned is expected to transmit 1 KiB/s"},
    Retired{
        "NETSCORE_KUBE_WATCH", "",
        "pods and nodes are watched in a pod, or outside one when NETSCORE_KUBE_API_URL is set"},
    Retired{"NETSCORE_KUBE_INSECURE", "",
            "the API server's certificate is always verified (NETSCORE_KUBE_CA_FILE names a "
            "private CA)"},
    Retired{"NETSCORE_SHM_MODE", "", "the collector creates the table 0600, its own UID's only"},
    Retired{"NETSCORE_SHM_ALLOW_FOREIGN_OWNER", "",
            "the extender attaches only to a table its own UID owns: run both containers as one "
            "UID"},
    Retired{"NETSCORE_URL_PREFIX", "",
            "/filter and /prioritize are answered under any path prefix, so the scheduler's "
            "urlPrefix alone decides it"},
    Retired{"NETSCORE_EXPLAIN_DECISIONS", "",
            "/explain keeps the last 4096 decisions (1.7 MiB) and 32768 node records they share "
            "(7.8 MiB)"},
    Retired{"NETSCORE_EXPLAIN_NODES", "",
            "/explain keeps the last 4096 decisions (1.7 MiB) and 32768 node records they share "
            "(7.8 MiB)"},
    Retired{"NETSCORE_BODY_LIMIT", "",
            "request bodies up to 32 MiB are read (5000 full Nodes are about 20 MB)"},
    Retired{"NETSCORE_REQUEST_TIMEOUT", "", "a request has 10s to arrive whole"},
    Retired{"NETSCORE_HEADER_TIMEOUT", "", "a request has 10s to arrive whole"},
    Retired{"NETSCORE_IDLE_TIMEOUT", "",
            "keep-alive connections idle for 120s are closed (above the scheduler client's 90s)"},
    Retired{"NETSCORE_MAX_CONNECTIONS", "",
            "each NETSCORE_THREADS thread serves up to 1024 connections at once"},
    Retired{"NETSCORE_NEUTRAL_SCORE", "",
            "nodes the table lacks and stale tables score 5, the middle of 0..10, so the other "
            "plugins decide"},
};

std::span<const Retired> retired_options() {
  return kRetired;
}

std::span<const Option> config_options() {
  return kOptionTable;
}

}  // namespace netscore
