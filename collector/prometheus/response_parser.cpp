#include "collector/prometheus/response_parser.h"

#include <algorithm>
#include <cstdint>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <unordered_map>
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

// A sample's value, when the series has one that is a Prometheus float string.
std::optional<double> sample_value(const rapidjson::Value& series) {
  const auto value = series.FindMember("value");
  if (value == series.MemberEnd() || !value->value.IsArray() || value->value.Size() != 2 ||
      !value->value[1].IsString())
    return std::nullopt;
  return parse_sample_value({value->value[1].GetString(), value->value[1].GetStringLength()});
}

// One request's answer, and what its series without the kind label are (nullopt: scores).
struct RequestAnswer {
  const std::string& body;
  std::optional<Part> untagged;
};

// Checks the envelope; on success, `result` is the answer's array of series.
std::string read_envelope(const rapidjson::Document& doc, std::vector<std::string>& warnings,
                          const rapidjson::Value*& result) {
  if (doc.HasParseError()) {
    return "unparsable response: " + std::string(rapidjson::GetParseError_En(doc.GetParseError())) +
           " at offset " + std::to_string(doc.GetErrorOffset());
  }
  if (!doc.IsObject()) return "unparsable response: not a JSON object";
  if (const auto it = doc.FindMember("warnings"); it != doc.MemberEnd() && it->value.IsArray()) {
    for (const auto& w : it->value.GetArray()) {
      if (w.IsString()) warnings.emplace_back(w.GetString(), w.GetStringLength());
    }
  }
  const std::string_view status = string_member(doc, "status");
  if (status == "error") {
    return "prometheus error errorType=" + std::string(string_member(doc, "errorType")) +
           " error=" + std::string(string_member(doc, "error"));
  }
  if (status != "success")
    return "unparsable response: status is \"" + std::string(status) +
           "\", expected success or error";
  const auto data = doc.FindMember("data");
  if (data == doc.MemberEnd() || !data->value.IsObject())
    return "unparsable response: no data object";
  const std::string_view result_type = string_member(data->value, "resultType");
  if (result_type != "vector")
    return "unexpected resultType \"" + std::string(result_type) + "\", expected vector";
  const auto it = data->value.FindMember("result");
  if (it == data->value.MemberEnd() || !it->value.IsArray())
    return "unparsable response: data.result is not an array";
  result = &it->value;
  return {};
}

// A refresh's answers parsed in situ; the node names read from them point into `buffers`.
struct ParsedAnswers {
  std::vector<rapidjson::Document> docs;
  // In-situ parsing on a copy: RapidJSON then leaves every string where it is instead of copying
  // it into the document, a fifth less time than parsing the answer as it is, copy included.
  std::vector<std::string> buffers;
  std::vector<const rapidjson::Value*> results;  // each answer's array of series
  std::size_t series = 0;
};

// False after setting out.error when an answer is malformed or failed.
bool parse_answers(std::span<const RequestAnswer> answers, ParsedAnswers& parsed,
                   ParsedVector& out) {
  parsed.docs.resize(answers.size());
  parsed.buffers.resize(answers.size());
  parsed.results.assign(answers.size(), nullptr);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    // Parsed as a NUL-terminated string, which RapidJSON scans with SIMD: a NUL byte would end the
    // answer early, and JSON holds none.
    if (const auto nul = answers[i].body.find('\0'); nul != std::string::npos) {
      out.error = "unparsable response: a NUL byte at offset " + std::to_string(nul);
      return false;
    }
    parsed.buffers[i] = answers[i].body;
    parsed.docs[i].ParseInsitu(parsed.buffers[i].data());
    out.error = read_envelope(parsed.docs[i], out.warnings, parsed.results[i]);
    if (!out.ok()) return false;
    parsed.series += parsed.results[i]->Size();
  }
  return true;
}

// Reads series into samples: a score series becomes a node's sample; an annotation waits until
// every score series is read, as a node's annotation may come before its score.
class SeriesReader {
 public:
  SeriesReader(std::string_view node_label, std::string_view kind_label, bool score_is_rate,
               const Aliases& aliases, std::size_t series, ParsedVector& out)
      : label_(node_label),
        kind_(kind_label),
        score_is_rate_(score_is_rate),
        aliases_(aliases),
        out_(out) {
    out_.samples.reserve(series);
    sample_of_.reserve(series);
  }

  // One series of an answer whose untagged series are `untagged` (nullopt: score series).
  void read(const rapidjson::Value& s, const std::optional<Part>& untagged) {
    if (!s.IsObject()) {
      ++(untagged ? out_.rate_series : out_.series);
      if (!untagged) ++out_.not_a_number;
      return;
    }
    const auto metric = s.FindMember("metric");
    const bool has_metric = metric != s.MemberEnd() && metric->value.IsObject();
    const std::string_view kind_value = !kind_.empty() && has_metric
                                            ? string_member(metric->value, kind_.c_str())
                                            : std::string_view{};
    const std::optional<Part> part =
        kind_value.empty() ? untagged : annotation_part(kind_value, aliases_);
    // An annotating request holds no scores: a series of no part of it is no part of the answer.
    if (!part && untagged) {
      ++out_.rate_series;
      return;
    }
    ++(part ? out_.rate_series : out_.series);
    const std::string_view node =
        has_metric ? string_member(metric->value, label_.c_str()) : std::string_view{};
    const std::optional<double> number = sample_value(s);
    if (part) {
      // These only annotate a score series; problems with them are the score's to report.
      if (!node.empty() && number) annotations_.push_back({*part, node, *number});
      return;
    }
    add_sample(node, number);
  }

  // The parts each sample has been annotated with, as bits: the first annotation of a part wins.
  void annotate_samples() {
    std::vector<std::uint8_t> annotated(out_.samples.size(), 0);
    for (const Annotation& a : annotations_) {
      const auto it = sample_of_.find(a.node);
      if (it == sample_of_.end()) continue;
      const auto bit = static_cast<std::uint8_t>(1U << static_cast<unsigned>(a.part));
      if ((annotated[it->second] & bit) != 0) {
        ++out_.duplicate_part;
        continue;
      }
      annotated[it->second] |= bit;
      annotate(out_.samples[it->second], a.part, a.value, score_is_rate_);
    }
  }

 private:
  struct Annotation {
    Part part;
    std::string_view node;
    double value;
  };

  void add_sample(std::string_view node, const std::optional<double>& number) {
    if (node.empty()) {
      ++out_.missing_label;
      return;
    }
    if (!number) {
      ++out_.not_a_number;
      return;
    }
    if (!sample_of_.emplace(node, out_.samples.size()).second) {
      ++out_.duplicate_node;
      return;
    }
    out_.samples.push_back({.node = std::string(node),
                            .value = *number,
                            .rate = score_is_rate_ ? *number : 0,
                            .rate_valid = score_is_rate_ && std::isfinite(*number)});
  }

  const std::string label_;
  const std::string kind_;
  const bool score_is_rate_;
  const Aliases& aliases_;
  ParsedVector& out_;
  std::unordered_map<std::string_view, std::size_t> sample_of_;
  std::vector<Annotation> annotations_;
};

ParsedVector parse(std::span<const RequestAnswer> answers, std::string_view node_label,
                   std::string_view kind_label, bool score_is_rate, const Aliases& aliases) {
  ParsedVector out;
  ParsedAnswers parsed;
  if (!parse_answers(answers, parsed, out)) return out;
  SeriesReader reader(node_label, kind_label, score_is_rate, aliases, parsed.series, out);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    for (const auto& s : parsed.results[i]->GetArray()) reader.read(s, answers[i].untagged);
  }
  reader.annotate_samples();
  return out;
}

}  // namespace

ParsedVector parse_vector_response(const std::string& body, std::string_view node_label,
                                   std::string_view kind_label, bool score_is_rate) {
  const RequestAnswer answer{body, std::nullopt};
  return parse(std::span(&answer, 1), node_label, kind_label, score_is_rate, {});
}

ParsedVector parse_vector_response(const std::string& body, const BuiltQuery& query) {
  const RequestAnswer answer{body, std::nullopt};
  return parse(std::span(&answer, 1), query.node_label, query.kind_label, query.score_is_rate,
               query.kind_aliases);
}

ParsedVector parse_batch_response(const std::string& receive_body, const std::string& transmit_body,
                                  const BuiltQuery& query) {
  std::vector<RequestAnswer> answers{{receive_body, std::nullopt}};
  if (!query.transmit_promql.empty())
    answers.push_back({transmit_body, annotation_part(query.transmit_untagged, {})});
  return parse(answers, query.node_label, query.kind_label, query.score_is_rate,
               query.kind_aliases);
}

LabelsAnswer parse_series_labels(const std::string& body) {
  LabelsAnswer out;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  std::vector<std::string> warnings;
  const rapidjson::Value* result = nullptr;
  out.error = read_envelope(doc, warnings, result);
  if (!out.error.empty()) return out;
  for (const auto& series : result->GetArray()) {
    if (!series.IsObject()) continue;
    const auto metric = series.FindMember("metric");
    if (metric == series.MemberEnd() || !metric->value.IsObject()) continue;
    SeriesLabels& labels = out.series.emplace_back();
    for (const auto& label : metric->value.GetObject()) {
      if (label.value.IsString())
        labels.emplace_back(label.name.GetString(), label.value.GetString());
    }
  }
  return out;
}

namespace {

const rapidjson::Value* array_member(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() || !it->value.IsArray() ? nullptr : &it->value;
}

}  // namespace

RulesAnswer parse_recording_rules(std::string_view body) {
  RulesAnswer out;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject() || string_member(doc, "status") != "success" ||
      !doc.HasMember("data") || !doc["data"].IsObject()) {
    out.error = "unexpected rules answer: not a successful Prometheus answer";
    return out;
  }
  const rapidjson::Value* groups = array_member(doc["data"], "groups");
  if (groups == nullptr) {
    out.error = "unexpected rules answer: no groups array";
    return out;
  }
  for (const auto& group : groups->GetArray()) {
    if (!group.IsObject()) continue;
    const rapidjson::Value* rules = array_member(group, "rules");
    if (rules == nullptr) {
      out.error = "unexpected rules answer: no rules array";
      return out;
    }
    for (const auto& rule : rules->GetArray()) {
      if (!rule.IsObject() || string_member(rule, "type") != "recording") continue;
      out.rules.push_back(
          {std::string(string_member(rule, "name")), std::string(string_member(rule, "query"))});
    }
  }
  return out;
}

PodTrafficAnswer parse_pod_traffic(const std::string& body) {
  PodTrafficAnswer out;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  const rapidjson::Value* result = nullptr;
  out.error = read_envelope(doc, out.warnings, result);
  if (!out.error.empty()) return out;
  out.pods.reserve(result->Size());
  for (const auto& series : result->GetArray()) {
    ++out.series;
    std::string_view ns;
    std::string_view pod;
    std::optional<double> value;
    if (series.IsObject()) {
      if (const auto metric = series.FindMember("metric");
          metric != series.MemberEnd() && metric->value.IsObject()) {
        ns = string_member(metric->value, "namespace");
        pod = string_member(metric->value, "pod");
      }
      value = sample_value(series);
    }
    if (ns.empty() || pod.empty() || !value || !std::isfinite(*value)) {
      ++out.skipped;
      continue;
    }
    out.pods.push_back({std::string(ns), std::string(pod), *value});
  }
  return out;
}

}  // namespace netscore::collector
