#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bench/prometheus_text/exposition.h"

// Histograms in the text exposition, read the way an operator's dashboard reads them: PromQL's
// histogram_quantile(), linear interpolation within the bucket the rank falls in.
namespace netscore::prometheus_text {

struct Bucket {
  double upper_bound = 0;  // `le`; +Inf for the last
  double cumulative = 0;   // observations at or below upper_bound
};

// The buckets of histogram `name` (its `name_bucket` series), summed per bound over every series
// whose labels hold `matchers`, by ascending bound.
std::vector<Bucket> buckets(const std::vector<Sample>& samples, std::string_view name,
                            const Labels& matchers = {});

// histogram_quantile(q, ...) as Prometheus computes it: the rank q x observations falls in the
// first bucket whose cumulative count reaches it, and lies linearly between that bucket's lower
// and upper bound (the lower of the first bucket is 0 unless its bound is at or below 0, then
// that bound); in the +Inf bucket it is the highest finite bound. nullopt without observations,
// without a +Inf bucket or with fewer than two buckets (where Prometheus answers NaN); q outside
// [0, 1] gives -Inf or +Inf as Prometheus does.
std::optional<double> quantile(std::span<const Bucket> buckets, double q);

// The number of observations (the +Inf bucket's count); 0 without buckets.
double observations(std::span<const Bucket> buckets);

}  // namespace netscore::prometheus_text
