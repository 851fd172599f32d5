#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// GET /metrics as data and one writer: each module collects its figures as metric families, and
// write_prometheus_text() alone knows the text exposition format (prometheus-cpp's split of
// Collectable from its serializer). Every metric's name, HELP and TYPE stand once, in the
// MetricInfo of the module that owns the figure. Pure data and functions: thread-safe.
namespace netscore::extender {

enum class MetricType : std::uint8_t { counter, gauge, histogram };

struct MetricInfo {
  std::string_view name;
  std::string_view help;
  MetricType type;
};

struct MetricLabel {
  std::string_view name;
  std::string value;
};

// Integers are written as integers; doubles in their shortest form that reads back the same.
using MetricValue = std::variant<std::uint64_t, double>;

struct MetricSample {
  std::string_view suffix;  // "_bucket", "_sum" or "_count" in a histogram; empty otherwise
  std::vector<MetricLabel> labels;
  MetricValue value;
};

struct MetricFamily {
  const MetricInfo* info;
  std::vector<MetricSample> samples;
};

// The families of one scrape, in the order they are written.
class MetricFamilies {
 public:
  // A family with no samples yet: its HELP and TYPE are written even if none are added.
  MetricFamily& add(const MetricInfo& info);
  // A family of one sample without labels.
  void add(const MetricInfo& info, MetricValue value);
  std::span<const MetricFamily> families() const { return families_; }

 private:
  std::vector<MetricFamily> families_;
};

// One histogram's samples under `labels`: a cumulative bucket per bound, +Inf, _sum and _count.
// `counts[b]` counts the observations in bucket b alone (bounds.size() + 1 of them, the last
// above every bound).
void add_histogram(MetricFamily& family, const std::vector<MetricLabel>& labels,
                   std::span<const double> bounds, std::span<const std::uint64_t> counts,
                   double sum);

// Prometheus text exposition format 0.0.4, appended to `out`.
void write_prometheus_text(const MetricFamilies& families, std::string& out);

}  // namespace netscore::extender
