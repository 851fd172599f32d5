#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/model/inputs.h"

// Decoding of a Prometheus /api/v1/query answer
// (https://prometheus.io/docs/prometheus/latest/querying/api/). Pure functions: thread-safe.
namespace netscore::collector {

struct ParsedVector {
  std::string
      error;  // non-empty: the whole answer is unusable (bad JSON, status:error, not a vector)
  std::vector<model::NodeSample> samples;
  std::vector<std::string> warnings;
  std::uint32_t series = 0;       // score series in the answer, usable or not
  std::uint32_t rate_series = 0;  // the other parts' series (rates, speeds), usable or not
  std::uint32_t missing_label = 0;
  std::uint32_t duplicate_node = 0;  // later series for a node already seen; the first one is kept
  std::uint32_t not_a_number = 0;    // value missing or not a Prometheus float string
  // Later annotation series for a node and part already seen (the first one is kept): only a
  // batch read per series (QueryShape::per_series) can have them.
  std::uint32_t duplicate_part = 0;

  bool ok() const { return error.empty(); }
  std::uint32_t skipped() const { return missing_label + duplicate_node + not_a_number; }
};

// Series problems are counted and skipped; only a malformed or failed answer sets `error`.
// With a kind_label (BuiltQuery::kind_label), series of the kinds query_builder.h names other than
// "score" annotate the node's sample, and every other series is a score series; an annotation
// without a score series is dropped. score_is_rate: every score value is also the node's rate,
// and the transmit rate is also its transmit value.
ParsedVector parse_vector_response(const std::string& body, std::string_view node_label,
                                   std::string_view kind_label = {}, bool score_is_rate = false);

struct BuiltQuery;
// The answer to a built query of one request, read with its node label, kind label and kinds'
// aliases.
ParsedVector parse_vector_response(const std::string& body, const BuiltQuery& query);
// The answers to a refresh's query (build_batch_query): the receive request's, and the transmit
// request's when the query has one (ignored otherwise). Either answer malformed or failed sets
// `error`; a transmit series only annotates the receive answer's node.
ParsedVector parse_batch_response(const std::string& receive_body, const std::string& transmit_body,
                                  const BuiltQuery& query);

// One series' labels, as the answer lists them.
using SeriesLabels = std::vector<std::pair<std::string, std::string>>;
struct LabelsAnswer {
  std::string error;  // non-empty: the whole answer is unusable, as ParsedVector::error
  std::vector<SeriesLabels> series;
};
// The labels of every series of an instant vector answer.
LabelsAnswer parse_series_labels(const std::string& body);

// A recording rule of a GET /api/v1/rules answer: its name and its expression as Prometheus
// prints it.
struct RecordingRule {
  std::string name;
  std::string query;
};
struct RulesAnswer {
  std::string error;  // non-empty: not Prometheus' rules list
  std::vector<RecordingRule> rules;
};
RulesAnswer parse_recording_rules(std::string_view body);

// One pod's value of a `sum by (namespace, pod)` answer: bytes/s in one direction.
struct PodRate {
  std::string namespace_name;
  std::string pod;
  double value = 0;
};
struct PodTrafficAnswer {
  std::string error;  // non-empty: the whole answer is unusable, as ParsedVector::error
  std::vector<PodRate> pods;
  std::vector<std::string> warnings;
  std::uint32_t series = 0;
  // Series without a namespace or a pod (the root cgroup's, a runtime that fills no pod labels),
  // or whose value is not a number: not a pod's traffic.
  std::uint32_t skipped = 0;
};
PodTrafficAnswer parse_pod_traffic(const std::string& body);

// Prometheus' sample value text: a decimal/exponent float, "NaN", "+Inf", "-Inf" (Go's ParseFloat).
std::optional<double> parse_sample_value(std::string_view text);

}  // namespace netscore::collector
