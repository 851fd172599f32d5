#include "collector/prometheus/query_builder.h"

#include <cstdio>
#include <span>

#include "common/model/query_parts.h"
#include "common/prometheus_names.h"

namespace netscore::collector {
namespace {

constexpr std::string_view kUnameMetric = "node_uname_info";
constexpr std::string_view kUnameNodeLabel = "nodename";

std::string_view function_name(QueryFunction f) {
  switch (f) {
    case QueryFunction::sum_over_time:
      return "sum_over_time";
    case QueryFunction::rate:
      return "rate";
    case QueryFunction::increase:
      return "increase";
  }
  return "sum_over_time";
}

// The labels tried for the node name; a QueryConfig built by hand may only set node_label.
std::vector<std::string> candidates(const QueryConfig& config) {
  return config.node_labels.empty() ? std::vector<std::string>{config.node_label}
                                    : config.node_labels;
}

void validate_metric(std::string_view variable, const std::string& metric) {
  if (!is_prometheus_metric_name(metric)) {
    throw QueryError("invalid " + std::string(variable) + "=\"" + metric +
                     "\": expected a metric name [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
}

void validate(const QueryConfig& config) {
  validate_metric("NETSCORE_RECEIVE_METRIC", config.metric);
  for (const auto& label : candidates(config)) {
    if (!is_prometheus_label_name(label)) {
      throw QueryError("invalid NETSCORE_NODE_LABEL=\"" + label +
                       "\": expected a label name [a-zA-Z_][a-zA-Z0-9_]*");
    }
  }
}

// <metric>{<device matcher><extra_matcher>}
std::string selector(const QueryConfig& config, std::string_view metric,
                     std::string_view extra_matcher) {
  std::string q(metric);
  q += '{';
  q += device_matcher(config);
  q += extra_matcher;
  q += '}';
  return q;
}

std::string windowed(const QueryConfig& config, QueryFunction function,
                     std::string_view extra_matcher) {
  std::string q(function_name(function));
  q += '(';
  q += selector(config, config.metric, extra_matcher);
  q += '[';
  q += config.time_range.text;
  q += "])";
  return q;
}

// <function>(<metric>{device="<iface>"}[<range>]); extra_matcher is appended inside the braces.
std::string windowed(const QueryConfig& config, std::string_view extra_matcher) {
  return windowed(config, config.function, extra_matcher);
}

std::string uname_join(std::string_view matcher) {
  std::string q = " * on(instance) group_left(nodename) (";
  q += kUnameMetric;
  q += matcher;
  q += ')';
  return q;
}

// Copies the first non-empty candidate label of each series into kCandidateNodeLabel: applied
// from the last candidate to the first, so a higher-priority label overwrites a lower one, and a
// series without any candidate keeps none ("(.+)" does not match an absent label).
std::string first_candidate(std::string expr, const std::vector<std::string>& labels) {
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
    expr = "label_replace(" + expr + ", \"" + std::string(kCandidateNodeLabel) + "\", \"$1\", \"" +
           *it + "\", \"(.+)\")";
  }
  return expr;
}

std::string label_mode_node_label(const QueryConfig& config) {
  const auto labels = candidates(config);
  return labels.size() == 1 ? labels.front() : std::string(kCandidateNodeLabel);
}

// `aggregation` by node of a per-series expression, in label or uname mode (custom mode's other
// parts use label mode).
std::string per_node(const QueryConfig& config, std::string_view aggregation,
                     const std::string& expr) {
  const std::string head = std::string(aggregation) + " by (";
  if (config.mode == QueryMode::uname)
    return head + std::string(kUnameNodeLabel) + ") (" + expr + uname_join("") + ")";
  const auto labels = candidates(config);
  if (labels.size() == 1) return head + labels.front() + ") (" + expr + ")";
  return head + std::string(kCandidateNodeLabel) + ") (" + first_candidate(expr, labels) + ")";
}

// per_series: the shape says each node has at most one series of the part, so summing by node
// would change no value (label mode; uname mode joins by its sum).
std::string per_node_sum(const QueryConfig& config, QueryFunction function, bool per_series) {
  if (per_series && config.mode == QueryMode::label) {
    const auto labels = candidates(config);
    const std::string expr = windowed(config, function, "");
    return labels.size() == 1 ? expr : first_candidate(expr, labels);
  }
  return per_node(config, "sum", windowed(config, function, ""));
}

QueryConfig with_layout(const QueryConfig& config, const QueryShape& shape) {
  QueryConfig out = config;
  if (config.mode == QueryMode::label && !shape.node_label.empty())
    out.node_labels = {shape.node_label};
  return out;
}

// Custom mode's template gives the score alone; the other parts use label mode on its label.
QueryConfig parts_config(const QueryConfig& config) {
  QueryConfig out = config;
  if (config.mode == QueryMode::custom) {
    out.mode = QueryMode::label;
    out.node_labels = {config.node_label};
  }
  return out;
}

QueryConfig transmit_config(const QueryConfig& config) {
  QueryConfig out = parts_config(config);
  out.metric = config.transmit_metric;
  return out;
}

std::string tagged(std::string_view expr, std::string_view kind) {
  std::string q = "label_replace(";
  q += expr;
  q += ", \"";
  q += kKindLabel;
  q += "\", \"";
  q += kind;
  q += "\", \"\", \"\")";
  return q;
}

void replace_all(std::string& text, std::string_view placeholder, std::string_view value) {
  for (std::size_t at = text.find(placeholder); at != std::string::npos;
       at = text.find(placeholder, at + value.size())) {
    text.replace(at, placeholder.size(), value);
  }
}

}  // namespace

std::string quote_promql_string(std::string_view value) {
  std::string out;
  out.reserve(value.size() + 2);
  out += '"';
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char hex[5];
          std::snprintf(hex, sizeof hex, "\\x%02x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += hex;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string device_matcher(const QueryConfig& config) {
  const bool negated = config.interface.starts_with('!');
  std::string m = "device";
  m += negated ? '!' : '=';
  if (config.interface_regex) m += '~';
  if (!negated && !config.interface_regex) return m + quote_promql_string(config.interface);
  if (negated && !config.interface_regex) m += '=';
  return m + quote_promql_string(std::string_view(config.interface).substr(negated ? 1 : 0));
}

bool asks_link_parts(const QueryConfig& config) {
  return config.basis != ScoreBasis::raw || config.direction != Direction::receive;
}

namespace {

std::string part(const QueryConfig& config, std::string_view kind, bool per_series) {
  validate(config);
  const QueryConfig parts = parts_config(config);
  if (kind == kKindScore) {
    if (config.mode != QueryMode::custom) return per_node_sum(config, config.function, per_series);
    if (config.custom_template.empty())
      throw QueryError("invalid NETSCORE_QUERY_TEMPLATE=\"\": expected a PromQL template");
    // {interface} is meant to sit inside a quoted matcher: substitute the escaped body only.
    const std::string quoted = quote_promql_string(config.interface);
    std::string score = config.custom_template;
    replace_all(score, "{interface}", std::string_view(quoted).substr(1, quoted.size() - 2));
    replace_all(score, "{range}", config.time_range.text);
    replace_all(score, "{node_label}", config.node_label);
    return score;
  }
  if (kind == kKindRate) return per_node_sum(parts, QueryFunction::rate, per_series);
  if (kind == kKindTransmitScore)
    return per_node_sum(transmit_config(config), config.function, per_series);
  if (kind == kKindTransmitRate)
    return per_node_sum(transmit_config(config), QueryFunction::rate, per_series);
  // node-exporter reports -1 for devices without a link speed: such a device adds nothing to
  // the node's capacity and is counted instead, so /table can say why a node has no speed.
  if (kind == kKindSpeed)
    return per_node(parts, "sum", "(" + selector(parts, config.speed_metric, "") + " > 0)");
  if (kind == kKindUnusableSpeed)
    return per_node(parts, "count", "(" + selector(parts, config.speed_metric, "") + " <= 0)");
  throw QueryError("unknown part \"" + std::string(kind) + "\" of the batch query");
}

std::string batch_node_label(const QueryConfig& config) {
  switch (config.mode) {
    case QueryMode::label:
      return label_mode_node_label(config);
    case QueryMode::uname:
      return std::string(kUnameNodeLabel);
    case QueryMode::custom:
      return config.node_label;
  }
  return config.node_label;
}

// The rules' own series, told apart by their names: one selector, no label_replace, no `or`.
BuiltQuery rule_batch(const QueryConfig& config, const QueryShape& shape) {
  std::vector<std::pair<std::string, std::string_view>> aliases{{shape.receive_rule, kKindScore}};
  std::string names = shape.receive_rule;
  if (asks_link_parts(config)) {
    names += "|" + shape.transmit_rule;
    aliases.emplace_back(shape.transmit_rule, kKindTransmitRate);
  }
  const auto labels = candidates(config);
  std::string expr = "{__name__=~" + quote_promql_string(names) + "}";
  if (labels.size() > 1) expr = first_candidate(expr, labels);
  const std::string node_label = label_mode_node_label(config);
  if (!shape.per_series) expr = "sum by (" + node_label + ", __name__) (" + expr + ")";
  return {std::move(expr), node_label, "__name__", true, std::move(aliases)};
}

}  // namespace

std::string build_tagged_parts_query(const QueryConfig& config,
                                     std::span<const std::string_view> kinds) {
  std::string out;
  for (const std::string_view kind : kinds) {
    if (!out.empty()) out += " or ";
    out += tagged(part(config, kind, false), kind);
  }
  return out;
}

std::string build_part_query(const QueryConfig& config, std::string_view kind) {
  return part(config, kind, false);
}

bool score_is_rate(const QueryConfig& config) {
  return config.mode != QueryMode::custom && config.function == QueryFunction::rate;
}

BuiltQuery build_batch_query(const QueryConfig& config, const QueryShape& shape) {
  validate(config);
  const QueryConfig shaped = with_layout(config, shape);
  if (!shape.receive_rule.empty()) return rule_batch(shaped, shape);
  const bool score_is_rate = collector::score_is_rate(config);
  std::vector<std::string_view> receive{kKindScore};
  if (!score_is_rate) receive.push_back(kKindRate);
  std::vector<std::string_view> transmit;
  if (model::asks_transmit_value(config.direction, config.function))
    transmit.push_back(kKindTransmitScore);
  if (asks_link_parts(config)) transmit.push_back(kKindTransmitRate);
  // label_replace only adds the kind label, so every series keeps exactly the value its own
  // query gives, and no two parts of one request share a label set.
  const auto request = [&](const std::vector<std::string_view>& kinds) {
    std::string q = part(shaped, kinds.front(), shape.per_series);
    for (const auto kind : std::span(kinds).subspan(1))
      q += " or " + tagged(part(shaped, kind, shape.per_series), kind);
    return q;
  };
  BuiltQuery out{request(receive), batch_node_label(shaped), std::string(kKindLabel),
                 score_is_rate};
  if (!transmit.empty()) {
    out.transmit_promql = request(transmit);
    out.transmit_untagged = transmit.front();
  }
  return out;
}

BuiltQuery build_speed_query(const QueryConfig& config, const QueryShape& shape) {
  validate(config);
  const QueryConfig parts = parts_config(with_layout(config, shape));
  std::string q = per_node(parts, "count", selector(parts, config.speed_metric, ""));
  for (const auto kind : {kKindSpeed, kKindUnusableSpeed})
    q += " or " + tagged(part(parts, kind, false), kind);
  return {std::move(q), batch_node_label(parts), std::string(kKindLabel), false};
}

std::optional<BuiltQuery> build_speed_series_query(const QueryConfig& config,
                                                   const QueryShape& shape) {
  validate(config);
  const QueryConfig parts = parts_config(with_layout(config, shape));
  if (!shape.per_series || parts.mode != QueryMode::label || candidates(parts).size() != 1)
    return std::nullopt;
  return BuiltQuery{selector(parts, config.speed_metric, ""), batch_node_label(parts), "", false};
}

std::string build_per_node_query(const QueryConfig& config, std::string_view node) {
  validate(config);
  if (config.mode == QueryMode::uname) {
    return windowed(config, "") + uname_join("{nodename=" + quote_promql_string(node) + "}");
  }
  return windowed(config, "," + config.node_label + "=" + quote_promql_string(node));
}

}  // namespace netscore::collector

namespace netscore::collector {
namespace {

constexpr std::string_view kInstanceLabel = "instance";

// One direction's rate over the node's link speed, both summed by the node label.
std::string utilisation_ratio(const QueryConfig& config, std::string_view rate_kind) {
  const std::string rate = part(config, rate_kind, false);
  std::string speed = part(config, kKindSpeed, false);
  if (config.fallback_speed > 0) {
    char fallback[32];
    std::snprintf(fallback, sizeof fallback, "%.17g", config.fallback_speed);
    speed = "(" + speed + " or (" + rate + " * 0 + " + fallback + "))";
  }
  return rate + " / " + speed;
}

}  // namespace

std::string build_link_load_query(const QueryConfig& config, const QueryShape& shape) {
  validate(config);
  const QueryConfig parts = parts_config(with_layout(config, shape));
  const std::string node_label = batch_node_label(parts);
  std::string ratio;
  switch (config.direction) {
    case Direction::receive:
      ratio = utilisation_ratio(parts, kKindRate);
      break;
    case Direction::transmit:
      ratio = utilisation_ratio(parts, kKindTransmitRate);
      break;
    case Direction::max:
      // Tagged apart, or `or` would keep the receive side alone for every node that has both.
      ratio = "max by (" + node_label + ") (" +
              tagged(utilisation_ratio(parts, kKindRate), kKindRate) + " or " +
              tagged(utilisation_ratio(parts, kKindTransmitRate), kKindTransmitRate) + ")";
      break;
  }
  if (node_label == kInstanceLabel) return ratio;
  return "label_replace(" + ratio + ", \"" + std::string(kInstanceLabel) + "\", \"$1\", \"" +
         node_label + "\", \"(.+)\")";
}

std::string build_utilisation_query(const QueryConfig& config, const QueryShape& shape) {
  return build_clamped_utilisation_query(build_link_load_query(config, shape));
}

std::string build_clamped_utilisation_query(std::string_view load) {
  return "clamp(" + std::string(load) + ", 0, 1)";
}

std::string build_relative_utilisation_query(std::string_view load) {
  const std::string u(load);
  // The mean is one series without labels: on() matches every node's to it. Filtered to a
  // positive mean, an idle cluster matches nothing and the `or` answers each node with the mean.
  return "clamp(" + u + " / on() group_left() (2 * avg(" + u + ") > 0), 0, 1) or (" + u +
         " * 0 + 0.5)";
}

std::string build_main_direction_load_query(std::string_view receive, std::string_view transmit) {
  const std::string rx(receive), tx(transmit);
  // Each mean is one series without labels, so the comparison and `unless` match them to each
  // other and `and on()` to every node; `unless` keeps a side whose other side has no series.
  return rx + " and on() (avg(" + rx + ") >= avg(" + tx + ") or avg(" + rx + ") unless avg(" + tx +
         ")) or " + tx + " and on() (avg(" + tx + ") > avg(" + rx + ") or avg(" + tx +
         ") unless avg(" + rx + "))";
}

QueryConfig rebalance_query_config(const Config& config) {
  QueryConfig query = config.query;
  query.time_range = rebalance_window(config);
  return query;
}

}  // namespace netscore::collector
