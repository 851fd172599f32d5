#include "collector/prometheus/response_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "collector/prometheus/query_builder.h"

namespace netscore::collector {
namespace {

std::string_view string_member(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

// The parts that annotate a node's score series.
enum class Part { rate, transmit_value, transmit_rate, speed, unusable_speeds, count };

using Aliases = std::vector<std::pair<std::string, std::string_view>>;

std::optional<Part> annotation_part(std::string_view kind, const Aliases& aliases) {
  for (const auto& [value, alias] : aliases) {
    if (value == kind) {
      kind = alias;
      break;
    }
  }
  if (kind == kKindRate) return Part::rate;
  if (kind == kKindTransmitScore) return Part::transmit_value;
  if (kind == kKindTransmitRate) return Part::transmit_rate;
  if (kind == kKindSpeed) return Part::speed;
  if (kind == kKindUnusableSpeed) return Part::unusable_speeds;
  return std::nullopt;
}

void annotate(model::NodeSample& sample, Part part, double value, bool score_is_rate) {
  const bool finite = std::isfinite(value);
  switch (part) {
    case Part::rate:
      sample.rate = value;
      sample.rate_valid = finite;
      break;
    case Part::transmit_rate:
      sample.transmit_rate = value;
      sample.transmit_rate_valid = finite;
      if (score_is_rate) {
        sample.transmit_value = value;
        sample.transmit_value_valid = finite;
      }
      break;
    case Part::transmit_value:
      sample.transmit_value = value;
      sample.transmit_value_valid = finite;
      break;
    case Part::speed:
      sample.speed = finite && value > 0 ? value : 0;
      break;
    case Part::unusable_speeds:
      // A count beyond uint32 is no count a node has, but converting it would be undefined.
      sample.unusable_speeds = finite && value > 0
                                   ? static_cast<std::uint32_t>(std::min(
                                         value, double{std::numeric_limits<std::uint32_t>::max()}))
                                   : 0;
      break;
    case Part::count:
      break;
  }
}

}  // namespace

std::optional<double> parse_sample_value(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (text.starts_with('+')) text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

namespace {

ParsedVector parse(std::string_view body, std::string_view node_label, std::string_view kind_label,
                   bool score_is_rate, const Aliases& aliases) {
  ParsedVector out;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    out.error =
        "unparsable response: " + std::string(rapidjson::GetParseError_En(doc.GetParseError())) +
        " at offset " + std::to_string(doc.GetErrorOffset());
    return out;
  }
  if (!doc.IsObject()) {
    out.error = "unparsable response: not a JSON object";
    return out;
  }
  if (const auto it = doc.FindMember("warnings"); it != doc.MemberEnd() && it->value.IsArray()) {
    for (const auto& w : it->value.GetArray()) {
      if (w.IsString()) out.warnings.emplace_back(w.GetString(), w.GetStringLength());
    }
  }
  const std::string_view status = string_member(doc, "status");
  if (status == "error") {
    out.error = "prometheus error errorType=" + std::string(string_member(doc, "errorType")) +
                " error=" + std::string(string_member(doc, "error"));
    return out;
  }
  if (status != "success") {
    out.error =
        "unparsable response: status is \"" + std::string(status) + "\", expected success or error";
    return out;
  }
  const auto data = doc.FindMember("data");
  if (data == doc.MemberEnd() || !data->value.IsObject()) {
    out.error = "unparsable response: no data object";
    return out;
  }
  const std::string_view result_type = string_member(data->value, "resultType");
  if (result_type != "vector") {
    out.error = "unexpected resultType \"" + std::string(result_type) + "\", expected vector";
    return out;
  }
  const auto result = data->value.FindMember("result");
  if (result == data->value.MemberEnd() || !result->value.IsArray()) {
    out.error = "unparsable response: data.result is not an array";
    return out;
  }
  const auto& series = result->value.GetArray();
  out.samples.reserve(series.Size());
  const std::string label(node_label);
  const std::string kind(kind_label);
  std::unordered_set<std::string_view> seen;
  std::array<std::unordered_map<std::string_view, double>, static_cast<std::size_t>(Part::count)>
      annotations;
  seen.reserve(series.Size());
  for (const auto& s : series) {
    if (!s.IsObject()) {
      ++out.series;
      ++out.not_a_number;
      continue;
    }
    const auto metric = s.FindMember("metric");
    const bool has_metric = metric != s.MemberEnd() && metric->value.IsObject();
    const std::optional<Part> part =
        !kind.empty() && has_metric
            ? annotation_part(string_member(metric->value, kind.c_str()), aliases)
            : std::nullopt;
    ++(part ? out.rate_series : out.series);
    const std::string_view node =
        has_metric ? string_member(metric->value, label.c_str()) : std::string_view{};
    const auto value = s.FindMember("value");
    std::optional<double> number;
    if (value != s.MemberEnd() && value->value.IsArray() && value->value.Size() == 2 &&
        value->value[1].IsString()) {
      number = parse_sample_value({value->value[1].GetString(), value->value[1].GetStringLength()});
    }
    if (part) {
      // These only annotate a score series; problems with them are the score's to report.
      if (!node.empty() && number &&
          !annotations[static_cast<std::size_t>(*part)].emplace(node, *number).second)
        ++out.duplicate_part;
      continue;
    }
    if (node.empty()) {
      ++out.missing_label;
      continue;
    }
    if (!number) {
      ++out.not_a_number;
      continue;
    }
    if (!seen.insert(node).second) {
      ++out.duplicate_node;
      continue;
    }
    out.samples.push_back({.node = std::string(node),
                           .value = *number,
                           .rate = score_is_rate ? *number : 0,
                           .rate_valid = score_is_rate && std::isfinite(*number)});
  }
  for (std::size_t p = 0; p < annotations.size(); ++p) {
    if (annotations[p].empty()) continue;
    for (auto& sample : out.samples) {
      if (const auto it = annotations[p].find(sample.node); it != annotations[p].end())
        annotate(sample, static_cast<Part>(p), it->second, score_is_rate);
    }
  }
  return out;
}

}  // namespace

ParsedVector parse_vector_response(std::string_view body, std::string_view node_label,
                                   std::string_view kind_label, bool score_is_rate) {
  return parse(body, node_label, kind_label, score_is_rate, {});
}

ParsedVector parse_vector_response(std::string_view body, const BuiltQuery& query) {
  return parse(body, query.node_label, query.kind_label, query.score_is_rate, query.kind_aliases);
}

}  // namespace netscore::collector
