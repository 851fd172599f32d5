#include "extender/views/explain.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <iterator>
#include <optional>

#include <spdlog/fmt/fmt.h>

#include "common/parse_number.h"
#include "common/table/score_table_layout.h"
#include "extender/scheduler/request.h"
#include "extender/views/json_writer.h"

namespace netscore::extender {
namespace {

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

// Names cut to their stored prefix end with an ellipsis so nobody takes them for the real name.
template <std::size_t N>
std::string shown(const FixedText<N>& t) {
  std::string s(t.view());
  if (t.truncated()) s += "\xE2\x80\xA6";
  return s;
}

std::string_view basis_name(const NodeDecision& n) {
  return score_basis_name(n.utilisation ? ScoreBasis::utilisation : ScoreBasis::raw);
}

}  // namespace

std::optional<std::string> parse_explain_query(std::string_view query, ExplainQuery& out) {
  for (const std::string_view param : query_params(query)) {
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
    } else if (key == "node") {
      if (value->empty() || value->size() > shm::kMaxNameBytes) return "node must be a node's name";
      out.node = *value;
    } else if (key == "format") {
      if (*value != "text" && *value != "json") return "format must be json or text";
      out.as_text = *value == "text";
    } else if (key == "limit") {
      const std::optional<std::size_t> n = parse_number<std::size_t>(*value);
      if (!n || *n == 0 || *n > kMaxExplainLimit)
        return "limit must be a number from 1 to " + std::to_string(kMaxExplainLimit);
      out.limit = *n;
      out.limit_given = true;
    } else {
      return "unknown parameter " + std::string(key.substr(0, 32)) +
             " (pod, uid, node, format, limit)";
    }
  }
  const bool pod = !out.pod_name.empty() || !out.uid.empty();
  if (pod && !out.node.empty()) return "node= goes alone, without pod= or uid=";
  if (!pod && out.node.empty()) return "give pod=NAMESPACE/NAME, uid=UID or node=NAME";
  return std::nullopt;
}

std::string render_explain_json(const ExplainQuery& query, std::span<const Decision> decisions) {
  JsonWriter j;
  j.begin_object();
  j.key("query");
  j.begin_object();
  j.fields({{"namespace", query.pod_namespace}, {"name", query.pod_name}, {"uid", query.uid}});
  j.end_object();
  j.key("decisions");
  j.begin_array();
  for (const Decision& d : decisions) {
    const DecisionHeader& h = d.header;
    j.begin_object();
    j.fields({{"time", iso_time(h.wall_ms)}, {"verb", to_string(h.verb)}});
    j.key("pod");
    j.begin_object();
    j.fields({{"namespace", shown(h.pod_namespace)},
              {"name", shown(h.pod_name)},
              {"uid", shown(h.pod_uid)}});
    j.end_object();
    j.key("table");
    j.begin_object();
    j.fields({{"state", to_string(h.freshness)},
              {"age_seconds", static_cast<double>(h.table_age_ns) * 1e-9},
              {"publish_id", h.publish_id}});
    j.end_object();
    j.fields(
        {{"normalisation", h.verb == Verb::prioritize ? normalisation_name(h.normalisation) : ""},
         {"nodes_asked", h.nodes_asked},
         {"nodes_recorded", h.nodes_recorded},
         {"nodes_overwritten", d.nodes_overwritten}});
    j.key("nodes");
    j.begin_array();
    for (const NodeDecision& n : d.nodes) {
      const auto unless_negative = [](auto value) {
        return value >= 0 ? JsonScalar(value) : JsonScalar(nullptr);
      };
      j.begin_object();
      j.fields({{"name", shown(n.name)},
                {"found", n.found},
                {"valid", n.valid},
                {"seed_raw", n.seed_raw},
                {"correction", n.correction},
                {"rate", unless_negative(n.rate)},
                {"basis", n.found ? JsonScalar(basis_name(n)) : nullptr},
                {"scored", n.found ? JsonScalar(n.scored) : nullptr},
                {"speed", unless_negative(n.speed)},
                {"score", unless_negative(n.score)},
                {"extender_score", unless_negative(n.extender_score)},
                {"filter",
                 n.verdict == FilterVerdict::none ? JsonScalar(nullptr) : to_string(n.verdict)},
                {"reason", shown(n.reason)}});
      write_priced_by(j, "correction_priced_by", shm::unpack_priced_by(n.priced_by));
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
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
    if (h.verb == Verb::prioritize)
      fmt::format_to(it, " scoring={}", normalisation_name(h.normalisation));
    fmt::format_to(it, " nodes={}", h.nodes_asked);
    if (h.nodes_recorded < h.nodes_asked) fmt::format_to(it, " (first {} kept)", h.nodes_recorded);
    if (d.nodes_overwritten != 0)
      fmt::format_to(it, " ({} node records overwritten since)", d.nodes_overwritten);
    out += '\n';
    std::size_t width = 4;
    for (const auto& n : d.nodes) width = std::max(width, shown(n.name).size());
    fmt::format_to(it,
                   "  {:<{}}  {:>5}  {:>22}  {:>10}  {:>12}  {:<11}  {:>14}  {:>14}  {:>5}  {:>3}  "
                   "{:<7}  {}\n",
                   "NODE", width, "FOUND", "SEED_RAW", "CORRECTION", "RATE_B/S", "BASIS", "SCORED",
                   "SPEED_B/S", "SCORE", "EXT", "FILTER", "REASON");
    for (const auto& n : d.nodes) {
      fmt::format_to(
          it,
          "  {:<{}}  {:>5}  {:>22.0f}  {:>10.0f}  {:>12}  {:<11}  {:>14}  {:>14}  {:>5}  "
          "{:>3}  {:<7}  {}\n",
          shown(n.name), width, n.found ? (n.valid ? "yes" : "inval") : "no", n.seed_raw,
          n.correction, n.rate >= 0 ? fmt::format("{:.0f}", n.rate) : "-",
          n.found ? basis_name(n) : "-",
          !n.found        ? std::string("-")
          : n.utilisation ? fmt::format("{:.6f}", n.scored)
                          : fmt::format("{:.0f}", n.scored),
          n.speed >= 0 ? fmt::format("{:.0f}", n.speed) : "-",
          n.score >= 0 ? std::to_string(n.score) : "-",
          n.extender_score >= 0 ? std::to_string(n.extender_score) : "-",
          n.verdict == FilterVerdict::none ? "-" : to_string(n.verdict), shown(n.reason));
    }
  }
  return out;
}

}  // namespace netscore::extender
