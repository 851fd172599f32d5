#include "collector/prometheus/side_queries.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "collector/prometheus/query_builder.h"
#include "common/duration.h"

namespace netscore::collector {
namespace {

// PromQL as Prometheus prints it, without the blanks outside string literals: its printer's
// spacing differs between versions (`without(device)`, `without (device)`).
std::string without_blanks(std::string_view text) {
  std::string out;
  bool quoted = false;
  bool escaped = false;
  for (const char c : text) {
    if (quoted) {
      out += c;
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        quoted = false;
      }
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
      out += c;
      quoted = c == '"';
    }
  }
  return out;
}

// "a=\"x\",b!~\"y\"" into its matchers, splitting at commas outside string literals.
std::vector<std::string> split_matchers(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  bool quoted = false;
  bool escaped = false;
  for (const char c : text) {
    if (!quoted && c == ',') {
      out.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
    if (escaped) {
      escaped = false;
    } else if (quoted && c == '\\') {
      escaped = true;
    } else if (c == '"') {
      quoted = !quoted;
    }
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

// The job a matcher `job="x"` selects; nothing for any other matcher.
std::optional<std::string> job_of(std::string_view matcher) {
  constexpr std::string_view kPrefix = "job=\"";
  if (!matcher.starts_with(kPrefix) || !matcher.ends_with('"') || matcher.size() < 7) return {};
  const std::string_view value = matcher.substr(kPrefix.size(), matcher.size() - 6);
  if (value.find_first_of("\\\"") != std::string_view::npos) return {};
  return std::string(value);
}

// The rule's job when `query` is `sum without (device) (rate(<metric>{...}[<range>]))` with the
// configured device matcher and window; "" without a job matcher.
std::optional<std::string> rate_rule_job(std::string_view query, const std::string& metric,
                                         const QueryConfig& config) {
  const std::string q = without_blanks(query);
  const std::string head = "sumwithout(device)(rate(" + metric + "{";
  const std::size_t close = q.rfind("}[");
  if (!q.starts_with(head) || close == std::string::npos || close < head.size() ||
      !q.ends_with("]))"))
    return {};
  const std::string_view range = std::string_view(q).substr(close + 2, q.size() - close - 5);
  const auto window = parse_prom_duration(range);
  if (!window || window->value != config.time_range.value) return {};
  const std::string device = without_blanks(device_matcher(config));
  std::optional<std::string> job;
  bool has_device = false;
  for (const auto& m :
       split_matchers(std::string_view(q).substr(head.size(), close - head.size()))) {
    if (m == device && !has_device) {
      has_device = true;
    } else if (auto j = job_of(m); j && !job) {
      job = std::move(j);
    } else {
      return {};
    }
  }
  if (!has_device) return {};
  return job.value_or("");
}

}  // namespace

std::optional<std::string> single_node_label(const ParsedVector& layout_answer) {
  if (!layout_answer.ok() || layout_answer.samples.size() != 1 ||
      !(layout_answer.samples.front().value > 0))
    return std::nullopt;
  return layout_answer.samples.front().node;
}

RateRules find_rate_rules(const std::vector<RecordingRule>& rules, const QueryConfig& config) {
  RateRules found;
  for (const auto& rule : rules) {
    if (!found.receive) {
      if (auto job = rate_rule_job(rule.query, config.metric, config))
        found.receive = RateRule{rule.name, std::move(*job)};
    }
    if (!found.transmit) {
      if (auto job = rate_rule_job(rule.query, config.transmit_metric, config))
        found.transmit = RateRule{rule.name, std::move(*job)};
    }
  }
  return found;
}

}  // namespace netscore::collector
