#include "extender/handlers.h"

#include <charconv>
#include <vector>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "extender/protocol.h"
#include "extender/scoring_policy.h"
#include "extender/table_view.h"

namespace netscore::extender {
namespace http = boost::beast::http;
namespace {

Response json_error(unsigned status, Verb verb, std::string_view message) {
  return {status, "application/json", error_body(message), verb, {}};
}

Response text(unsigned status, Verb verb, std::string body) {
  return {status, "text/plain; charset=utf-8", std::move(body), verb, {}};
}

// The scheduler passes a filter Error to fmt.Errorf as the format string.
std::string without_percent(std::string s) {
  for (char& c : s) {
    if (c == '%') c = '?';
  }
  return s;
}

std::optional<std::uint64_t> parse_byte_count(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::int64_t Handlers::max_age_ns() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(config_.max_age.value).count();
}

void Handlers::note_missing(std::span<const std::string_view> names, std::span<const NodeScore> scores) {
  std::uint64_t missing = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (scores[i].found) continue;
    ++missing;
    shared_.missing.add(names[i]);
  }
  if (missing != 0) shared_.metrics.count_missing_lookups(thread_, missing);
}

Response Handlers::handle(http::verb method, std::string_view target, std::string& body, const TableAttachment& table,
                          std::int64_t now_mono_ns) {
  const auto q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  const std::string_view prefix = config_.extender.url_prefix;
  const bool under_prefix = path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix;
  const std::string_view verb = under_prefix ? path.substr(prefix.size()) : std::string_view{};

  if (verb == "/filter" || verb == "/prioritize") {
    const Verb v = verb == "/filter" ? Verb::filter : Verb::prioritize;
    if (method != http::verb::post) {
      auto r = json_error(405, v, "use POST");
      r.allow = "POST";
      return r;
    }
    return v == Verb::filter ? filter(body, table.reader(), now_mono_ns) : prioritize(body, table.reader(), now_mono_ns);
  }
  const auto get_only = [&](Verb v, auto&& answer) -> Response {
    if (method != http::verb::get && method != http::verb::head) {
      auto r = json_error(405, v, "use GET");
      r.allow = "GET, HEAD";
      return r;
    }
    return answer();
  };
  if (path == "/healthz") return get_only(Verb::healthz, [] { return text(200, Verb::healthz, "ok\n"); });
  if (path == "/readyz") return get_only(Verb::readyz, [&] { return readyz(table, now_mono_ns); });
  if (path == "/metrics") return get_only(Verb::metrics, [&] { return metrics(table.reader(), now_mono_ns); });
  if (path == "/table") return get_only(Verb::table, [&] { return this->table(query, table, now_mono_ns); });
  return json_error(404, Verb::other, fmt::format("no endpoint {}; try {}/filter, {}/prioritize, /table, /healthz, "
                                                  "/readyz, /metrics",
                                                  path.substr(0, 200), prefix, prefix));
}

Response Handlers::prioritize(std::string& body, const ScoreTableReader* table, std::int64_t now_mono_ns) {
  ExtenderArgs args;
  if (auto error = parse_extender_args(body, args)) {
    // The scheduler drops prioritize errors silently (logged only at V(5)); this is the only trace.
    spdlog::warn("prioritize rejected error=\"{}\"", *error);
    return json_error(400, Verb::prioritize, *error);
  }
  std::vector<NodeScore> found(args.names.size());
  const Lookup lookup = lookup_nodes(table, args.names, args.name_hashes, found, now_mono_ns, max_age_ns());
  if (lookup.freshness == Freshness::fresh) note_missing(args.names, found);
  std::vector<std::int64_t> scores(args.names.size());
  score_nodes(config_.extender.scoring, config_.extender.neutral_score, lookup, found, scores);
  Response r{200, "application/json", {}, Verb::prioritize, {}};
  write_host_priority_list(args.names, scores, r.body);
  return r;
}

Response Handlers::filter(std::string& body, const ScoreTableReader* table, std::int64_t now_mono_ns) {
  // In-situ parsing rewrites strings; Nodes-mode answers echo the original node objects.
  const std::string original = body;
  ExtenderArgs args;
  if (auto error = parse_extender_args(body, args)) {
    spdlog::warn("filter rejected error=\"{}\"", *error);
    return json_error(400, Verb::filter, *error);
  }
  std::vector<std::size_t> passed;
  std::vector<FailedNode> failed;
  std::string error;
  std::vector<NodeScore> found(args.names.size());
  const Lookup lookup = lookup_nodes(table, args.names, args.name_hashes, found, now_mono_ns, max_age_ns());
  if (lookup.freshness == Freshness::fresh) note_missing(args.names, found);

  std::optional<std::uint64_t> ceiling;
  if (args.max_receive_bytes) {
    ceiling = parse_byte_count(*args.max_receive_bytes);
    if (!ceiling) {
      error = without_percent(fmt::format("netscore: annotation {}=\"{}\" is not a whole number of bytes",
                                          kMaxReceiveAnnotation, args.max_receive_bytes->substr(0, 64)));
    } else if (lookup.freshness != Freshness::fresh && config_.extender.stale_policy == StalePolicy::fail_closed) {
      error = fmt::format("netscore: score table is {}, cannot check {} (NETSCORE_STALE_POLICY=closed)",
                          to_string(lookup.freshness), kMaxReceiveAnnotation);
    }
  }
  if (error.empty()) {
    const bool check = ceiling && lookup.freshness == Freshness::fresh;
    for (std::size_t i = 0; i < args.names.size(); ++i) {
      const NodeScore& n = found[i];
      if (check && n.found && n.valid && n.raw > static_cast<double>(*ceiling)) {
        failed.push_back({i, fmt::format("netscore: node received {:.0f} bytes over the window, above the pod's {} "
                                         "of {}",
                                         n.raw, kMaxReceiveAnnotation, *ceiling)});
      } else {
        passed.push_back(i);
      }
    }
  }
  Response r{200, "application/json", {}, Verb::filter, {}};
  write_filter_result(args, original, passed, failed, error, r.body);
  return r;
}

Response Handlers::readyz(const TableAttachment& table, std::int64_t now_mono_ns) const {
  if (shared_.draining.load(std::memory_order_relaxed)) return text(503, Verb::readyz, "draining\n");
  if (table.reader() == nullptr) {
    return text(503, Verb::readyz, fmt::format("score table not attached: {}\n", table.last_error()));
  }
  const Lookup lookup = lookup_nodes(table.reader(), {}, {}, {}, now_mono_ns, max_age_ns());
  switch (lookup.freshness) {
    case Freshness::fresh: return text(200, Verb::readyz, "ok\n");
    case Freshness::stale:
      return text(503, Verb::readyz, fmt::format("score table stale: no successful refresh for {:.1f}s, over NETSCORE_MAX_AGE {}\n",
                                                 static_cast<double>(lookup.age_ns) * 1e-9, config_.max_age.text));
    case Freshness::empty: return text(503, Verb::readyz, "score table empty: the collector has not published yet\n");
    default: return text(503, Verb::readyz, fmt::format("score table {}\n", to_string(lookup.freshness)));
  }
}

Response Handlers::metrics(const ScoreTableReader* table, std::int64_t now_mono_ns) const {
  Response r{200, "text/plain; version=0.0.4; charset=utf-8", {}, Verb::metrics, {}};
  shared_.metrics.render(r.body);
  render_table_metrics(table, now_mono_ns, shared_.metrics.missing_lookups(), shared_.missing, r.body);
  return r;
}

Response Handlers::table(std::string_view query, const TableAttachment& table, std::int64_t now_mono_ns) const {
  const TableView view = read_table_view(table, shared_.missing, config_, now_mono_ns);
  bool as_text = false;
  for (std::size_t at = 0; at <= query.size();) {
    const auto amp = query.find('&', at);
    const auto param = query.substr(at, amp == std::string_view::npos ? std::string_view::npos : amp - at);
    if (param == "format=text") as_text = true;
    if (amp == std::string_view::npos) break;
    at = amp + 1;
  }
  if (as_text) return text(200, Verb::table, render_table_text(view));
  return {200, "application/json", render_table_json(view), Verb::table, {}};
}

}  // namespace netscore::extender
