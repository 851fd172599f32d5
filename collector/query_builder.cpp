#include "collector/query_builder.h"

#include <cstdio>

namespace netscore::collector {
namespace {

constexpr std::string_view kUnameMetric = "node_uname_info";
constexpr std::string_view kUnameNodeLabel = "nodename";

bool is_name(std::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

std::string_view function_name(QueryFunction f) {
  switch (f) {
    case QueryFunction::sum_over_time: return "sum_over_time";
    case QueryFunction::rate: return "rate";
    case QueryFunction::increase: return "increase";
  }
  return "sum_over_time";
}

void validate(const QueryConfig& config) {
  if (!is_valid_metric_name(config.metric)) {
    throw QueryError("invalid NETSCORE_METRIC=\"" + config.metric + "\": expected a metric name [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
  if (!is_valid_label_name(config.node_label)) {
    throw QueryError("invalid NETSCORE_NODE_LABEL=\"" + config.node_label +
                     "\": expected a label name [a-zA-Z_][a-zA-Z0-9_]*");
  }
}

std::string windowed(const QueryConfig& config, QueryFunction function, std::string_view extra_matcher) {
  std::string q(function_name(function));
  q += '(';
  q += config.metric;
  q += "{device";
  q += config.interface_regex ? "=~" : "=";
  q += quote_promql_string(config.interface);
  q += extra_matcher;
  q += "}[";
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

// The expression of `function` per node in label or uname mode (custom mode's rate uses label mode).
std::string per_node_sum(const QueryConfig& config, QueryFunction function) {
  if (config.mode == QueryMode::uname) {
    return "sum by (" + std::string(kUnameNodeLabel) + ") (" + windowed(config, function, "") + uname_join("") + ")";
  }
  return "sum by (" + config.node_label + ") (" + windowed(config, function, "") + ")";
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
  for (std::size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size())) {
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
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char hex[5];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += hex;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

bool is_valid_label_name(std::string_view name) { return is_name(name, false); }
bool is_valid_metric_name(std::string_view name) { return is_name(name, true); }

BuiltQuery build_batch_query(const QueryConfig& config) {
  validate(config);
  std::string score;
  std::string node_label = config.mode == QueryMode::uname ? std::string(kUnameNodeLabel) : config.node_label;
  if (config.mode == QueryMode::custom) {
    if (config.custom_template.empty()) throw QueryError("invalid NETSCORE_QUERY_TEMPLATE=\"\": expected a PromQL template");
    // {interface} is meant to sit inside a quoted matcher: substitute the escaped body only.
    const std::string quoted = quote_promql_string(config.interface);
    score = config.custom_template;
    replace_all(score, "{interface}", std::string_view(quoted).substr(1, quoted.size() - 2));
    replace_all(score, "{range}", config.time_range.text);
    replace_all(score, "{node_label}", config.node_label);
  } else {
    score = per_node_sum(config, config.function);
    if (config.function == QueryFunction::rate) return {std::move(score), std::move(node_label), "", true};
  }
  // One request answers both: label_replace only adds the kind label, so every score series
  // keeps exactly the value its own query gives, and the two halves never share a label set.
  std::string q = tagged(score, kKindScore);
  q += " or ";
  q += tagged(per_node_sum(config, QueryFunction::rate), kKindRate);
  return {std::move(q), std::move(node_label), std::string(kKindLabel), false};
}

std::string build_per_node_query(const QueryConfig& config, std::string_view node) {
  validate(config);
  if (config.mode == QueryMode::uname) {
    return windowed(config, "") + uname_join("{nodename=" + quote_promql_string(node) + "}");
  }
  return windowed(config, "," + config.node_label + "=" + quote_promql_string(node));
}

}  // namespace netscore::collector
