#include "extender/views/metrics.h"

#include <array>
#include <iterator>

#include <spdlog/fmt/fmt.h>

namespace netscore::extender {
namespace {

std::string_view type_name(MetricType type) {
  static constexpr std::array<std::string_view, 3> kNames = {"counter", "gauge", "histogram"};
  return kNames[static_cast<std::size_t>(type)];
}

// The exposition format escapes backslash, double quote and line feed in label values.
void append_label_value(std::string_view value, std::string& out) {
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

}  // namespace

MetricFamily& MetricFamilies::add(const MetricInfo& info) {
  families_.push_back({&info, {}});
  return families_.back();
}

void MetricFamilies::add(const MetricInfo& info, MetricValue value) {
  add(info).samples.push_back({{}, {}, value});
}

void add_histogram(MetricFamily& family, const std::vector<MetricLabel>& labels,
                   std::span<const double> bounds, std::span<const std::uint64_t> counts,
                   double sum) {
  std::uint64_t cumulative = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    cumulative += counts[b];
    auto bucket_labels = labels;
    bucket_labels.push_back({"le", b < bounds.size() ? fmt::format("{}", bounds[b]) : "+Inf"});
    family.samples.push_back({"_bucket", std::move(bucket_labels), cumulative});
  }
  family.samples.push_back({"_sum", labels, sum});
  family.samples.push_back({"_count", labels, cumulative});
}

void write_prometheus_text(const MetricFamilies& families, std::string& out) {
  auto it = std::back_inserter(out);
  for (const MetricFamily& family : families.families()) {
    const MetricInfo& info = *family.info;
    fmt::format_to(it, "# HELP {0} {1}\n# TYPE {0} {2}\n", info.name, info.help,
                   type_name(info.type));
    for (const MetricSample& sample : family.samples) {
      out += info.name;
      out += sample.suffix;
      if (!sample.labels.empty()) {
        char separator = '{';
        for (const MetricLabel& label : sample.labels) {
          out += separator;
          out += label.name;
          out += "=\"";
          append_label_value(label.value, out);
          out += '"';
          separator = ',';
        }
        out += '}';
      }
      std::visit([&](auto value) { fmt::format_to(it, " {}\n", value); }, sample.value);
    }
  }
}

}  // namespace netscore::extender
