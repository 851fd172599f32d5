#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Prometheus' text exposition format as the benchmarks read it off /metrics (kube-scheduler's,
// the extender's): one sample per line, `name{label="value",...} value [timestamp]`, comments
// and blank lines skipped. The one parser every benchmark reads metrics with.
namespace netscore::prometheus_text {

using Labels = std::map<std::string, std::string>;

struct Sample {
  std::string name{};
  Labels labels{};
  double value = 0;
};

// A sample value or an `le` bound: a decimal number, or Go's +Inf, -Inf, NaN.
std::optional<double> number(std::string_view text);

// Every well-formed sample line in order; a malformed line is skipped, as a scraper that keeps
// what it can read would.
std::vector<Sample> parse(std::string_view exposition);

// The value of the series `name` whose labels are exactly `labels`; nullopt without one.
std::optional<double> value(const std::vector<Sample>& samples, std::string_view name,
                            const Labels& labels = {});

// Whether `labels` holds every pair of `matchers`.
bool matches(const Labels& labels, const Labels& matchers);

}  // namespace netscore::prometheus_text
