#include "extender/explain.h"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <iterator>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/fmt/fmt.h>

#include "common/clock.h"
#include "common/scoring.h"

namespace netscore::extender {
namespace {

DecisionHeader header_for(Verb verb, const ExtenderArgs& args, const Lookup& lookup) noexcept {
  DecisionHeader h;
  h.verb = verb;
  h.wall_ms = wall_now_ms();
  h.freshness = lookup.freshness;
  h.table_age_ns = lookup.age_ns;
  h.publish_id = lookup.meta.publish_id;
  h.pod_namespace.set(args.pod_namespace);
  h.pod_name.set(args.pod_name);
  h.pod_uid.set(args.pod_uid);
  return h;
}

void describe_node(NodeDecision& n, std::string_view name, const NodeScore& score) noexcept {
  n.name.set(name);
  n.found = score.found;
  n.valid = score.valid();
  n.seed_raw = score.raw;
  n.correction = score.expected;
  n.priced_by = static_cast<std::uint8_t>(score.flags / shm::kEntryPricedByAnnotation);
  n.rate = (score.flags & shm::kEntryRateValid) != 0 ? score.rate : -1;
}

std::optional<std::string> percent_decode(std::string_view in) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') {
      out += ' ';
    } else if (in[i] != '%') {
      out += in[i];
    } else {
      unsigned value = 0;
      if (i + 2 >= in.size()) return std::nullopt;
      const auto [end, ec] = std::from_chars(in.data() + i + 1, in.data() + i + 3, value, 16);
      if (ec != std::errc{} || end != in.data() + i + 3) return std::nullopt;
      out += static_cast<char>(value);
      i += 2;
    }
  }
  return out;
}

std::string iso_time(std::int64_t wall_ms) {
  const time_t seconds = static_cast<time_t>(wall_ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                     wall_ms % 1000);
}

// Names cut to their stored prefix end with an ellipsis so nobody takes them for the real name.
template <std::size_t N>
std::string shown(const FixedText<N>& t) {
  std::string s(t.view());
  if (t.truncated()) s += "\xE2\x80\xA6";
  return s;
}

}  // namespace

void record_prioritize(DecisionLog& log, const ExtenderConfig& config, const ExtenderArgs& args,
                       const Lookup& lookup, std::span<const NodeScore> found,
                       std::span<const std::int64_t> scores, std::span<const std::int16_t> percent,
                       std::span<const FailedNode> unfiltered) noexcept {
  if (!log.enabled()) return;
  DecisionHeader h = header_for(Verb::prioritize, args, lookup);
  h.scoring = config.scoring;
  // record() fills nodes in index order and the filter lists failures in index order: one cursor.
  std::size_t next_failed = 0;
  log.record(h, args.names.size(), [&](std::size_t i, NodeDecision& n) {
    describe_node(n, args.names[i], found[i]);
    n.extender_score = static_cast<std::int8_t>(scores[i]);
    n.score = percent[i];
    while (next_failed < unfiltered.size() && unfiltered[next_failed].index < i) ++next_failed;
    if (next_failed < unfiltered.size() && unfiltered[next_failed].index == i) {
      n.verdict = FilterVerdict::failed;
      n.reason.set(unfiltered[next_failed].reason);
    }
  });
}

void record_filter(DecisionLog& log, const ExtenderArgs& args, const Lookup& lookup,
                   std::span<const NodeScore> found, std::span<const std::size_t> passed,
                   std::span<const FailedNode> failed) noexcept {
  if (!log.enabled()) return;
  const DecisionHeader h = header_for(Verb::filter, args, lookup);
  // A filter that needed no table (the pod asks for nothing netscore checks) looked nothing up.
  static const NodeScore not_looked_up{};
  const auto score_of = [&](std::size_t index) -> const NodeScore& {
    return index < found.size() ? found[index] : not_looked_up;
  };
  // Failing nodes first, then passing ones: a decision cut to its first nodes keeps the failures.
  log.record(h, passed.size() + failed.size(), [&](std::size_t i, NodeDecision& n) {
    if (i < failed.size()) {
      describe_node(n, args.names[failed[i].index], score_of(failed[i].index));
      n.verdict = FilterVerdict::failed;
      n.reason.set(failed[i].reason);
    } else {
      const std::size_t index = passed[i - failed.size()];
      describe_node(n, args.names[index], score_of(index));
      n.verdict = FilterVerdict::passed;
    }
  });
}

std::optional<std::string> parse_explain_query(std::string_view query, ExplainQuery& out) {
  for (std::size_t at = 0; at < query.size();) {
    const auto amp = query.find('&', at);
    const auto param =
        query.substr(at, amp == std::string_view::npos ? std::string_view::npos : amp - at);
    at = amp == std::string_view::npos ? query.size() : amp + 1;
    if (param.empty()) continue;
    const auto eq = param.find('=');
    const auto key = param.substr(0, eq);
    const auto value =
        percent_decode(eq == std::string_view::npos ? std::string_view{} : param.substr(eq + 1));
    if (!value) return "malformed percent-encoding in " + std::string(key.substr(0, 32));
    if (key == "pod") {
      const auto slash = value->find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == value->size()) {
        return "pod must be NAMESPACE/NAME";
      }
      out.pod_namespace = value->substr(0, slash);
      out.pod_name = value->substr(slash + 1);
    } else if (key == "uid") {
      if (value->empty()) return "uid must not be empty";
      out.uid = *value;
    } else if (key == "format") {
      if (*value != "text" && *value != "json") return "format must be json or text";
      out.as_text = *value == "text";
    } else if (key == "limit") {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
      if (ec != std::errc{} || end != value->data() + value->size() || n == 0 ||
          n > kMaxExplainLimit) {
        return "limit must be a number from 1 to " + std::to_string(kMaxExplainLimit);
      }
      out.limit = n;
    } else {
      return "unknown parameter " + std::string(key.substr(0, 32)) + " (pod, uid, format, limit)";
    }
  }
  if (out.pod_name.empty() && out.uid.empty()) return "give pod=NAMESPACE/NAME or uid=UID";
  return std::nullopt;
}

std::string render_explain_json(const ExplainQuery& query, std::span<const Decision> decisions) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto str = [&](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("query");
  w.StartObject();
  w.Key("namespace");
  str(query.pod_namespace);
  w.Key("name");
  str(query.pod_name);
  w.Key("uid");
  str(query.uid);
  w.EndObject();
  w.Key("decisions");
  w.StartArray();
  for (const Decision& d : decisions) {
    const DecisionHeader& h = d.header;
    w.StartObject();
    w.Key("time");
    str(iso_time(h.wall_ms));
    w.Key("verb");
    str(to_string(h.verb));
    w.Key("pod");
    w.StartObject();
    w.Key("namespace");
    str(shown(h.pod_namespace));
    w.Key("name");
    str(shown(h.pod_name));
    w.Key("uid");
    str(shown(h.pod_uid));
    w.EndObject();
    w.Key("table");
    w.StartObject();
    w.Key("state");
    str(to_string(h.freshness));
    w.Key("age_seconds");
    w.Double(static_cast<double>(h.table_age_ns) * 1e-9);
    w.Key("publish_id");
    w.Uint64(h.publish_id);
    w.EndObject();
    w.Key("scoring");
    str(h.verb == Verb::prioritize ? scoring_mode_name(h.scoring) : "");
    w.Key("nodes_asked");
    w.Uint(h.nodes_asked);
    w.Key("nodes_recorded");
    w.Uint(h.nodes_recorded);
    w.Key("nodes_overwritten");
    w.Uint(d.nodes_overwritten);
    w.Key("nodes");
    w.StartArray();
    for (const NodeDecision& n : d.nodes) {
      w.StartObject();
      w.Key("name");
      str(shown(n.name));
      w.Key("found");
      w.Bool(n.found);
      w.Key("valid");
      w.Bool(n.valid);
      w.Key("seed_raw");
      w.Double(n.seed_raw);
      w.Key("correction");
      w.Double(n.correction);
      w.Key("rate");
      if (n.rate >= 0)
        w.Double(n.rate);
      else
        w.Null();
      w.Key("score");
      if (n.score >= 0)
        w.Int(n.score);
      else
        w.Null();
      w.Key("extender_score");
      if (n.extender_score >= 0)
        w.Int(n.extender_score);
      else
        w.Null();
      w.Key("filter");
      if (n.verdict == FilterVerdict::none)
        w.Null();
      else
        str(to_string(n.verdict));
      w.Key("reason");
      str(shown(n.reason));
      w.Key("correction_priced_by");
      w.StartArray();
      for (const auto& [flag, name] : shm::kPricedBy) {
        if ((n.priced_by & (flag / shm::kEntryPricedByAnnotation)) != 0) str(name);
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string render_explain_text(const ExplainQuery& query, std::span<const Decision> decisions) {
  std::string out;
  auto it = std::back_inserter(out);
  if (query.uid.empty()) {
    fmt::format_to(it, "{} decision(s) for pod {}/{}, newest first\n", decisions.size(),
                   query.pod_namespace, query.pod_name);
  } else {
    fmt::format_to(it, "{} decision(s) for pod uid {}, newest first\n", decisions.size(),
                   query.uid);
  }
  for (const Decision& d : decisions) {
    const DecisionHeader& h = d.header;
    fmt::format_to(it, "\n{} {} {}/{} table={} age={:.1f}s publish={}", iso_time(h.wall_ms),
                   to_string(h.verb), shown(h.pod_namespace), shown(h.pod_name),
                   to_string(h.freshness), static_cast<double>(h.table_age_ns) * 1e-9,
                   h.publish_id);
    if (h.verb == Verb::prioritize) fmt::format_to(it, " scoring={}", scoring_mode_name(h.scoring));
    fmt::format_to(it, " nodes={}", h.nodes_asked);
    if (h.nodes_recorded < h.nodes_asked) fmt::format_to(it, " (first {} kept)", h.nodes_recorded);
    if (d.nodes_overwritten != 0)
      fmt::format_to(it, " ({} node records overwritten since)", d.nodes_overwritten);
    out += '\n';
    std::size_t width = 4;
    for (const auto& n : d.nodes) width = std::max(width, shown(n.name).size());
    fmt::format_to(it, "  {:<{}}  {:>5}  {:>22}  {:>10}  {:>12}  {:>5}  {:>3}  {:<7}  {}\n", "NODE",
                   width, "FOUND", "SEED_RAW", "CORRECTION", "RATE_B/S", "SCORE", "EXT", "FILTER",
                   "REASON");
    for (const auto& n : d.nodes) {
      fmt::format_to(it, "  {:<{}}  {:>5}  {:>22.0f}  {:>10.0f}  {:>12}  {:>5}  {:>3}  {:<7}  {}\n",
                     shown(n.name), width, n.found ? (n.valid ? "yes" : "inval") : "no", n.seed_raw,
                     n.correction, n.rate >= 0 ? fmt::format("{:.0f}", n.rate) : "-",
                     n.score >= 0 ? std::to_string(n.score) : "-",
                     n.extender_score >= 0 ? std::to_string(n.extender_score) : "-",
                     n.verdict == FilterVerdict::none ? "-" : to_string(n.verdict),
                     shown(n.reason));
    }
  }
  return out;
}

}  // namespace netscore::extender
