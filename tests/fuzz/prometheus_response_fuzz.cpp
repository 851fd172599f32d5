// The collector's decoding of Prometheus' batched /api/v1/query answer, followed by what the
// refresher does with every sample (model::plugin_score, model::normalise_scores). The first input
// byte picks the node label; the rest is the response body. Checked against response_parser.h's
// contract: an error leaves no samples; on success every series is counted exactly once (kept or
// skipped), names are non-empty and unique, and a value is any double (NaN/±Inf are the refresher's
// to reject), whose plugin score, when there is one, is non-negative and normalises into 0..100.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "collector/prometheus/response_parser.h"
#include "common/model/scoring.h"

namespace {

constexpr std::string_view kLabels[] = {"kubernetes_node", "nodename", "instance", ""};

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_sample_value(std::string_view text) {
  const auto value = netscore::collector::parse_sample_value(text);
  if (!value || std::isfinite(*value)) return;
  const bool special =
      std::isnan(*value) ? text == "NaN" : text == "+Inf" || text == "Inf" || text == "-Inf";
  check(special);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view label = kLabels[data[0] % std::size(kLabels)];
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  check_sample_value(body.substr(0, 64));

  // Higher bits of the first byte: answers split into score and rate series by a kind label.
  const bool kinds = (data[0] / std::size(kLabels)) % 2 == 1;
  const auto parsed =
      netscore::collector::parse_vector_response(body, label, kinds ? "netscore_kind" : "");
  if (!parsed.ok()) {
    check(parsed.samples.empty() && parsed.series == 0);
    return 0;
  }
  check(parsed.error.empty());
  check(parsed.samples.size() + parsed.skipped() == parsed.series);
  std::unordered_set<std::string_view> names;
  std::vector<std::int64_t> raw;
  for (const auto& sample : parsed.samples) {
    check(!sample.node.empty());
    check(!sample.rate_valid || (kinds && std::isfinite(sample.rate)));
    check(names.insert(sample.node).second);
    if (const auto score = netscore::model::plugin_score(sample.value)) {
      check(*score >= 0 && std::isfinite(sample.value) && sample.value >= 0);
      raw.push_back(*score);
    }
  }
  std::vector<std::int64_t> normalised(raw.size());
  netscore::model::normalise_scores(raw, normalised);
  for (const auto n : normalised) {
    check(n >= 0 && n <= netscore::model::kMaxNodeScore);
    const auto extender = netscore::model::to_extender_score(n);
    check(extender >= 0 && extender <= netscore::model::kMaxExtenderScore);
  }
  return 0;
}
