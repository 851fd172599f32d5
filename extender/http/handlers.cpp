#include "extender/http/handlers.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "common/clock.h"
#include "common/model/prioritize.h"
#include "common/model_settings.h"
#include "common/parse_number.h"
#include "common/pod_annotations.h"
#include "extender/scheduler/decision_recording.h"
#include "extender/scheduler/freshness.h"
#include "extender/scheduler/link_figures.h"
#include "extender/scheduler/pod_rate.h"
#include "extender/scheduler/protocol.h"
#include "extender/views/explain.h"
#include "extender/views/metrics.h"
#include "extender/views/node_placements.h"
#include "extender/views/table_html.h"
#include "extender/views/table_view.h"

namespace netscore::extender {
namespace http = boost::beast::http;
namespace {

Response json_error(unsigned status, Verb verb, std::string_view message) {
  return {status, "application/json", error_body(message), verb, {}};
}

Response text(unsigned status, Verb verb, std::string body) {
  return {status, "text/plain; charset=utf-8", std::move(body), verb, {}};
}

constexpr MetricInfo kConstraintsWithoutFilter{
    "netscore_extender_constraints_without_filter_total",
    "Prioritize requests for pods with filter constraints "
    "while kube-scheduler had never called the filter verb (those nodes scored 0, not refused).",
    MetricType::counter};

}  // namespace

void Handlers::note_missing(std::span<const std::string_view> names,
                            std::span<const NodeScore> scores) {
  std::uint64_t missing = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (scores[i].found) continue;
    ++missing;
    shared_.missing.add(names[i]);
  }
  if (missing != 0) shared_.metrics.count_missing_lookups(thread_, missing);
}

Response Handlers::handle(http::verb method, std::string_view target, std::string& body,
                          const TableAttachment& table, std::int64_t now_mono_ns,
                          std::string_view accept) {
  const Target t = split_target(target);
  const RouteMatch match = match_route(method, t.path, read_only_);
  if (match.route == nullptr) {
    Response r = json_error(match.status, match.verb, match.error);
    r.allow = match.allow;
    return r;
  }
  switch (match.route->verb) {
    case Verb::filter:
      return filter(body, table.reader(), now_mono_ns);
    case Verb::prioritize:
      return prioritize(body, table.reader(), now_mono_ns);
    case Verb::table:
      return this->table(t.query, accept, table, now_mono_ns);
    case Verb::healthz:
      return text(200, Verb::healthz, "ok\n");
    case Verb::readyz:
      return readyz(t.query, table, now_mono_ns);
    case Verb::metrics:
      return metrics(table.reader(), now_mono_ns);
    case Verb::explain:
      return explain(t.query, table.reader());
    case Verb::other:
      break;
  }
  return json_error(404, Verb::other, "no endpoint");
}

Response Handlers::prioritize(std::string& body, const ScoreTableReader* table,
                              std::int64_t now_mono_ns) {
  ExtenderArgs args;
  if (auto error = parse_extender_args(body, args)) {
    // The scheduler drops prioritize errors silently (logged only at V(5)); this is the only trace.
    spdlog::warn("prioritize rejected error=\"{}\"", *error);
    return json_error(400, Verb::prioritize, *error);
  }
  std::vector<NodeScore> found(args.names.size());
  const Lookup lookup =
      lookup_nodes(table, args.names, args.name_hashes, found, now_mono_ns, max_age_ns(config_));
  if (lookup.freshness == Freshness::fresh) note_missing(args.names, found);
  std::vector<std::int64_t> scores(args.names.size());
  std::vector<std::int16_t> percent(args.names.size());
  const model::PrioritizeSettings settings = prioritize_settings(config_);
  const model::TableRead read{.fresh = lookup.freshness == Freshness::fresh,
                              .meta = lookup.meta,
                              .nodes = found,
                              .name_hashes = args.name_hashes};
  // A pod without a controller belongs to its app.kubernetes.io/name's burst, keyed as the
  // collector keys that workload.
  const bool by_label = args.pod_owner_uid.empty() && !args.pod_app_name.empty();
  const std::string label_owner =
      by_label ? workload_key(args.pod_namespace, kLabelWorkloadKind, args.pod_app_name)
               : std::string();
  const model::PodToPlace pod{
      .owner = by_label ? std::string_view(label_owner) : args.pod_owner_uid,
      .owner_by_label = by_label,
      .uid = args.pod_uid,
      .rate = pod_rate_of(args.pod_annotations, snapshot_direction(lookup.meta))};
  shared_.spread.prioritize(settings, read, pod, now_mono_ns, scores, percent);
  FilterOutcome unfiltered;
  if (!shared_.filter_served.load(std::memory_order_relaxed) && filter_.constrains(args)) {
    score_unfiltered_constraints(args, lookup, found, scores, unfiltered);
  }
  record_prioritize(shared_.decisions, config_.extender, args, lookup, found, scores, percent,
                    unfiltered.failed);
  Response r{200, "application/json", {}, Verb::prioritize, {}};
  write_host_priority_list(args.names, scores, r.body);
  return r;
}

void Handlers::score_unfiltered_constraints(const ExtenderArgs& args, const Lookup& lookup,
                                            std::span<const NodeScore> found,
                                            std::span<std::int64_t> scores,
                                            FilterOutcome& outcome) {
  // Prioritize cannot refuse a node; the lowest score steers the pod away unless another plugin
  // outweighs it, which is why the configuration needs the filter verb and the operator is told.
  filter_.run(args, lookup, found, outcome);
  for (const FailedNode& f : outcome.failed) scores[f.index] = 0;
  if (shared_.constraints_without_filter.fetch_add(1, std::memory_order_relaxed) == 0) {
    spdlog::warn(
        "pod {}/{} asks for filtering ({} or a NETSCORE_LABEL_RULES annotation) "
        "but kube-scheduler has not called the filter verb: "
        "add filterVerb: \"filter\" to its extender configuration; "
        "until then such pods only score 0 on the nodes the filter would refuse ({})",
        args.pod_namespace, args.pod_name, kMaxReceiveRateAnnotation,
        kConstraintsWithoutFilter.name);
  }
}

Response Handlers::filter(std::string& body, const ScoreTableReader* table,
                          std::int64_t now_mono_ns) {
  // In-situ parsing rewrites strings; Nodes-mode answers echo the original node objects.
  const std::string original = body;
  ExtenderArgs args;
  if (auto error = parse_extender_args(body, args)) {
    spdlog::warn("filter rejected error=\"{}\"", *error);
    return json_error(400, Verb::filter, *error);
  }
  if (!shared_.filter_served.load(std::memory_order_relaxed)) {
    shared_.filter_served.store(true, std::memory_order_relaxed);
  }
  FilterOutcome outcome;
  filter_.run(args, table, now_mono_ns, outcome);
  if (outcome.looked_up && outcome.freshness == Freshness::fresh)
    note_missing(args.names, outcome.found);
  record_filter(shared_.decisions, args, outcome.lookup, outcome.found, outcome.passed,
                outcome.failed);
  Response r{200, "application/json", {}, Verb::filter, {}};
  write_filter_result(args, original, outcome.passed, outcome.failed, r.body);
  return r;
}

Response Handlers::readyz(std::string_view query, const TableAttachment& table,
                          std::int64_t now_mono_ns) const {
  if (shared_.draining.load(std::memory_order_relaxed))
    return text(503, Verb::readyz, "draining\n");
  const TableHealth health = table_health(table, config_, now_mono_ns);
  if (health.problem.empty()) return text(200, Verb::readyz, "ok\n");
  // kube-apiserver's convention: ?exclude=<check> leaves one check out. The pod's probe excludes
  // the table, so a Prometheus outage does not stall a rollout of an extender that serves
  // (neutral scores); staleness stays visible here, in /table and in /metrics.
  const auto params = query_params(query);
  if (std::find(params.begin(), params.end(), "exclude=table") != params.end())
    return text(200, Verb::readyz, "ok (excluded: " + health.problem + ")\n");
  return text(503, Verb::readyz, health.problem + "\n");
}

Response Handlers::metrics(const ScoreTableReader* table, std::int64_t now_mono_ns) const {
  MetricFamilies families;
  shared_.metrics.collect(families);
  collect_table_metrics(table, now_mono_ns, families);
  shared_.metrics.collect_missing_lookups(families);
  shared_.missing.collect(families);
  families.add(kConstraintsWithoutFilter,
               shared_.constraints_without_filter.load(std::memory_order_relaxed));
  Response r{200, "text/plain; version=0.0.4; charset=utf-8", {}, Verb::metrics, {}};
  write_prometheus_text(families, r.body);
  return r;
}

Response Handlers::table(std::string_view query, std::string_view accept,
                         const TableAttachment& table, std::int64_t now_mono_ns) const {
  const TableView view = read_table_view(table, shared_.missing, config_, now_mono_ns);
  bool as_text = false;
  bool as_json = false;
  bool as_html = false;
  unsigned refresh = 0;
  for (const std::string_view param : query_params(query)) {
    if (param == "format=text") as_text = true;
    if (param == "format=json") as_json = true;
    if (param == "format=html") as_html = true;
    if (param.starts_with("refresh=")) {
      const std::optional<unsigned> seconds = parse_number<unsigned>(param.substr(8));
      if (!seconds || *seconds == 0 || *seconds > 3600)
        return json_error(400, Verb::table, "refresh must be a number of seconds from 1 to 3600");
      refresh = *seconds;
    }
  }
  if (as_text) return text(200, Verb::table, render_table_text(view));
  if (as_html || (!as_json && prefers_html(accept))) {
    return {200, "text/html; charset=utf-8", render_table_html(view, refresh), Verb::table, {}};
  }
  return {200, "application/json", render_table_json(view), Verb::table, {}};
}

Response Handlers::explain(std::string_view query, const ScoreTableReader* table) const {
  ExplainQuery q;
  if (auto error = parse_explain_query(query, q)) return json_error(400, Verb::explain, *error);
  if (!q.node.empty()) {
    if (table == nullptr) return json_error(503, Verb::explain, "no score table attached");
    const NodePlacements view = node_placements(
        *table, q.node, q.limit_given ? q.limit : shm::kPlacementSlots, wall_now_ms());
    if (q.as_text) return text(200, Verb::explain, render_node_placements_text(view));
    return {200, "application/json", render_node_placements_json(view), Verb::explain, {}};
  }
  if (!shared_.decisions.enabled()) {
    return json_error(404, Verb::explain, "no decisions are kept (the decision log is off)");
  }
  const auto decisions = shared_.decisions.find(q.pod_namespace, q.pod_name, q.uid, q.limit);
  if (decisions.empty()) {
    const std::string who = q.uid.empty() ? q.pod_namespace + "/" + q.pod_name : "uid " + q.uid;
    return json_error(404, Verb::explain,
                      fmt::format("no decision recorded for pod {} among the last {} decisions",
                                  who.substr(0, 300), shared_.decisions.decision_capacity()));
  }
  if (q.as_text) return text(200, Verb::explain, render_explain_text(q, decisions));
  return {200, "application/json", render_explain_json(q, decisions), Verb::explain, {}};
}

}  // namespace netscore::extender
