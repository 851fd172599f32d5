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

// <function>(<metric>{device="<iface>"}[<range>]); extra_matcher is appended inside the braces.
std::string windowed(const QueryConfig& config, std::string_view extra_matcher) {
  std::string q(function_name(config.function));
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

std::string uname_join(std::string_view matcher) {
  std::string q = " * on(instance) group_left(nodename) (";
  q += kUnameMetric;
  q += matcher;
  q += ')';
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
  switch (config.mode) {
    case QueryMode::label:
      return {"sum by (" + config.node_label + ") (" + windowed(config, "") + ")", config.node_label};
    case QueryMode::uname:
      // The per-node query multiplies by node_uname_info (value 1) to attach nodename; summing the
      // join by nodename gives each node the value its own query returned.
      return {"sum by (nodename) (" + windowed(config, "") + uname_join("") + ")", std::string(kUnameNodeLabel)};
    case QueryMode::custom: {
      if (config.custom_template.empty()) throw QueryError("invalid NETSCORE_QUERY_TEMPLATE=\"\": expected a PromQL template");
      // {interface} is meant to sit inside a quoted matcher: substitute the escaped body only.
      const std::string quoted = quote_promql_string(config.interface);
      std::string q = config.custom_template;
      replace_all(q, "{interface}", std::string_view(quoted).substr(1, quoted.size() - 2));
      replace_all(q, "{range}", config.time_range.text);
      replace_all(q, "{node_label}", config.node_label);
      return {std::move(q), config.node_label};
    }
  }
  throw QueryError("unknown query mode");
}

std::string build_per_node_query(const QueryConfig& config, std::string_view node) {
  validate(config);
  if (config.mode == QueryMode::uname) {
    return windowed(config, "") + uname_join("{nodename=" + quote_promql_string(node) + "}");
  }
  return windowed(config, "," + config.node_label + "=" + quote_promql_string(node));
}

}  // namespace netscore::collector
