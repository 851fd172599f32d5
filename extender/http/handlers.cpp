#include "extender/http/handlers.h"

#include <charconv>
#include <vector>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "extender/views/explain.h"
#include "extender/scheduler/protocol.h"
#include "extender/scheduler/freshness.h"
#include "extender/views/table_html.h"
#include "extender/scheduler/table_state.h"
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

bool has_param(std::string_view query, std::string_view param) {
  for (std::size_t at = 0; at <= query.size();) {
    const auto amp = query.find('&', at);
    if (query.substr(at, amp == std::string_view::npos ? std::string_view::npos : amp - at) ==
        param)
      return true;
    if (amp == std::string_view::npos) break;
    at = amp + 1;
  }
  return false;
}

}  // namespace

std::int64_t Handlers::max_age_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(config_.max_age.value).count();
}

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
  const auto q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query =
      q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  const std::string_view prefix = config_.extender.url_prefix;
  const bool under_prefix = path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix;
  const std::string_view verb = under_prefix ? path.substr(prefix.size()) : std::string_view{};
  if (read_only_ && path != "/metrics" && path != "/healthz" && path != "/readyz" &&
      path != "/table") {
    return json_error(404, Verb::other,
                      "this listener (NETSCORE_METRICS_LISTEN) serves only /metrics, /healthz, "
                      "/readyz and /table");
  }

  if (verb == "/filter" || verb == "/prioritize") {
    const Verb v = verb == "/filter" ? Verb::filter : Verb::prioritize;
    if (method != http::verb::post) {
      auto r = json_error(405, v, "use POST");
      r.allow = "POST";
      return r;
    }
    return v == Verb::filter ? filter(body, table.reader(), now_mono_ns)
                             : prioritize(body, table.reader(), now_mono_ns);
  }
  const auto get_only = [&](Verb v, auto&& answer) -> Response {
    if (method != http::verb::get && method != http::verb::head) {
      auto r = json_error(405, v, "use GET");
      r.allow = "GET, HEAD";
      return r;
    }
    return answer();
  };
  if (path == "/healthz")
    return get_only(Verb::healthz, [] { return text(200, Verb::healthz, "ok\n"); });
  if (path == "/readyz")
    return get_only(Verb::readyz, [&] { return readyz(query, table, now_mono_ns); });
  if (path == "/metrics")
    return get_only(Verb::metrics, [&] { return metrics(table.reader(), now_mono_ns); });
  if (path == "/table") {
    return get_only(Verb::table, [&] { return this->table(query, accept, table, now_mono_ns); });
  }
  if (path == "/explain") return get_only(Verb::explain, [&] { return explain(query); });
  return json_error(404, Verb::other,
                    fmt::format("no endpoint {}; try {}/filter, {}/prioritize, /table, /explain, "
                                "/healthz, /readyz, /metrics",
                                path.substr(0, 200), prefix, prefix));
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
      lookup_nodes(table, args.names, args.name_hashes, found, now_mono_ns, max_age_ns());
  if (lookup.freshness == Freshness::fresh) note_missing(args.names, found);
  std::vector<std::int64_t> scores(args.names.size());
  std::vector<std::int16_t> percent(args.names.size());
  const std::int64_t spread_ns =
      std::chrono::nanoseconds(config_.extender.spread_window.value).count();
  std::vector<std::uint32_t> assumed;
  const bool spreading = !args.pod_owner_uid.empty() && spread_ns > 0 &&
                         lookup.freshness == Freshness::fresh && corrected(lookup.meta) &&
                         lookup.meta.pod_price > 0;
  if (spreading) {
    assumed.resize(args.names.size());
    shared_.spread.unconfirmed(args.pod_owner_uid, args.name_hashes, assumed, now_mono_ns,
                               lookup.meta.published_mono_ns, spread_ns);
  }
  score_nodes(config_.extender.scoring, config_.extender.neutral_score, lookup, found, scores,
              percent, assumed);
  if (spreading) {
    shared_.spread.recommend(args.pod_owner_uid, args.pod_uid, args.name_hashes, scores, percent,
                             now_mono_ns, spread_ns);
  }
  FilterOutcome unfiltered;
  if (!shared_.filter_served.load(std::memory_order_relaxed) && filter_.constrains(args)) {
    score_unfiltered_constraints(args, table, now_mono_ns, scores, unfiltered);
  }
  record_prioritize(shared_.decisions, config_.extender, args, lookup, found, scores, percent,
                    unfiltered.failed);
  Response r{200, "application/json", {}, Verb::prioritize, {}};
  write_host_priority_list(args.names, scores, r.body);
  return r;
}

void Handlers::score_unfiltered_constraints(const ExtenderArgs& args, const ScoreTableReader* table,
                                            std::int64_t now_mono_ns,
                                            std::span<std::int64_t> scores,
                                            FilterOutcome& outcome) {
  // Prioritize cannot refuse a node; the lowest score steers the pod away unless another plugin
  // outweighs it, which is why the configuration needs the filter verb and the operator is told.
  filter_.run(args, table, now_mono_ns, outcome);
  for (const FailedNode& f : outcome.failed) scores[f.index] = 0;
  if (shared_.constraints_without_filter.fetch_add(1, std::memory_order_relaxed) == 0) {
    spdlog::warn(
        "pod {}/{} asks for filtering ({} or a NETSCORE_LABEL_RULES annotation) but kube-scheduler "
        "has not "
        "called the filter verb: add filterVerb: \"filter\" to its extender configuration; until "
        "then such "
        "pods only score 0 on the nodes the filter would refuse "
        "(netscore_extender_constraints_without_filter_total)",
        args.pod_namespace, args.pod_name, kMaxReceiveRateAnnotation);
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
  write_filter_result(args, original, outcome.passed, outcome.failed, {}, r.body);
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
  if (has_param(query, "exclude=table"))
    return text(200, Verb::readyz, "ok (excluded: " + health.problem + ")\n");
  return text(503, Verb::readyz, health.problem + "\n");
}

Response Handlers::metrics(const ScoreTableReader* table, std::int64_t now_mono_ns) const {
  Response r{200, "text/plain; version=0.0.4; charset=utf-8", {}, Verb::metrics, {}};
  shared_.metrics.render(r.body);
  render_table_metrics(table, now_mono_ns, shared_.metrics.missing_lookups(), shared_.missing,
                       r.body);
  fmt::format_to(std::back_inserter(r.body),
                 "# HELP netscore_extender_constraints_without_filter_total Prioritize requests "
                 "for pods with filter "
                 "constraints while kube-scheduler had never called the filter verb (those nodes "
                 "scored 0, not "
                 "refused).\n# TYPE netscore_extender_constraints_without_filter_total counter\n"
                 "netscore_extender_constraints_without_filter_total {}\n",
                 shared_.constraints_without_filter.load(std::memory_order_relaxed));
  return r;
}

Response Handlers::table(std::string_view query, std::string_view accept,
                         const TableAttachment& table, std::int64_t now_mono_ns) const {
  const TableView view = read_table_view(table, shared_.missing, config_, now_mono_ns);
  bool as_text = false;
  bool as_json = false;
  bool as_html = false;
  unsigned refresh = 0;
  for (std::size_t at = 0; at <= query.size();) {
    const auto amp = query.find('&', at);
    const auto param =
        query.substr(at, amp == std::string_view::npos ? std::string_view::npos : amp - at);
    if (param == "format=text") as_text = true;
    if (param == "format=json") as_json = true;
    if (param == "format=html") as_html = true;
    if (param.starts_with("refresh=")) {
      const auto value = param.substr(8);
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), refresh);
      if (ec != std::errc{} || end != value.data() + value.size() || refresh == 0 ||
          refresh > 3600) {
        return json_error(400, Verb::table, "refresh must be a number of seconds from 1 to 3600");
      }
    }
    if (amp == std::string_view::npos) break;
    at = amp + 1;
  }
  if (as_text) return text(200, Verb::table, render_table_text(view));
  if (as_html || (!as_json && prefers_html(accept))) {
    return {200, "text/html; charset=utf-8", render_table_html(view, refresh), Verb::table, {}};
  }
  return {200, "application/json", render_table_json(view), Verb::table, {}};
}

Response Handlers::explain(std::string_view query) const {
  ExplainQuery q;
  if (auto error = parse_explain_query(query, q)) return json_error(400, Verb::explain, *error);
  if (!shared_.decisions.enabled()) {
    return json_error(404, Verb::explain, "no decisions are kept (NETSCORE_EXPLAIN_DECISIONS=0)");
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
