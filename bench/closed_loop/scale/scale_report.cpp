#include "bench/closed_loop/scale/scale_report.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace netscore::sim {
namespace {

constexpr std::string_view kCollector = "netscore-collec", kExtender = "netscore-extend";

std::string ms(const std::optional<double>& seconds) {
  return seconds ? fmt::format("{:.1f}", *seconds * 1000) : std::string("-");
}

std::string number(const std::optional<double>& value, int decimals) {
  return value ? fmt::format("{:.{}f}", *value, decimals) : std::string("-");
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// kube-scheduler's p99s (one attempt, the algorithm, queue to bound) and the watch's drain order.
constexpr std::string_view kLatencies[] = {"attempt", "algorithm", "queued", "since_first"};
std::optional<double> p99(const ScaleRunResult& r, std::size_t which) {
  const LatencyQuantiles* all[] = {&r.attempt, &r.algorithm, &r.queued, &r.since_first};
  return all[which]->p99;
}

std::optional<double> ratio(const std::optional<double>& with, const std::optional<double>& alone) {
  if (!with || !alone || *alone <= 0) return std::nullopt;
  return *with / *alone;
}

std::optional<double> throughput_ratio(const ScaleRunResult& alone, const ScaleRunResult& with) {
  return ratio(with.pods_per_s, alone.pods_per_s);
}

std::optional<double> cpu_ms_per_pod_of(const ScaleRunResult& run, std::string_view comm) {
  const auto at = run.cpu_ms_per_pod.find(std::string(comm));
  if (at == run.cpu_ms_per_pod.end()) return std::nullopt;
  return at->second;
}

// The median of `of` over the runs that have it, as "key=value" ("-" when none has).
std::string median_field(std::string_view key, const std::vector<ScaleRunResult>& runs,
                         const std::function<std::optional<double>(const ScaleRunResult&)>& of,
                         int decimals) {
  std::vector<double> values;
  for (const auto& run : runs) {
    if (const auto value = of(run)) values.push_back(*value);
  }
  return fmt::format(" {}={}", key, number(median(values), decimals));
}

}  // namespace

std::optional<double> netscore_cpu_ms_per_pod(const ScaleRunResult& run) {
  const auto collector = cpu_ms_per_pod_of(run, kCollector),
             extender = cpu_ms_per_pod_of(run, kExtender);
  if (!collector || !extender) return std::nullopt;
  return *collector + *extender;
}

void print_run(const ScalePairs& pairs, const ScaleRunResult& r) {
  std::string line = fmt::format(
      "scale_run nodes={} limits={} pair={} mode={} load_1m={} bound={} first_to_last_s={:.2f} "
      "pods_per_s={:.1f}",
      pairs.nodes, pairs.limits, pairs.alone.size(), mode_name(r.mode), number(r.load_1m, 2),
      r.bound, r.first_to_last_s, r.pods_per_s);
  const std::pair<std::string_view, const LatencyQuantiles*> latencies[] = {
      {"attempt", &r.attempt},
      {"algorithm", &r.algorithm},
      {"queued", &r.queued},
      {"since_first", &r.since_first}};
  for (const auto& [name, q] : latencies)
    line += fmt::format(" {0}_p50_ms={1} {0}_p99_ms={2}", name, ms(q->p50), ms(q->p99));
  for (const auto& [comm, seconds] : r.cpu_s)
    line += fmt::format(" cpu_{}_s={:.2f}", comm, seconds);
  for (const auto& [comm, per_pod] : r.cpu_ms_per_pod)
    line += fmt::format(" cpu_ms_per_pod_{}={:.3f}", comm, per_pod);
  if (r.mode == ScaleMode::netscore) {
    line += fmt::format(
        " netscore_added_cpu_ms_per_pod={} collector_cpu_ms_per_refresh={:.1f} "
        "prometheus_cpu_ms_per_refresh={:.1f} refreshes_per_s={:.2f} collector_peak_rss_kb={}",
        number(netscore_cpu_ms_per_pod(r), 3), r.collector_cpu_ms_per_refresh,
        r.prometheus_cpu_ms_per_refresh, r.refreshes_per_s, r.collector_peak_rss_kb);
  }
  if (r.mode != ScaleMode::alone) {
    line += fmt::format(
        " extender_peak_rss_kb={} prioritize_answered={:.0f} extender_established={} "
        "extender_time_wait={} extender_server_p50_ms={} extender_server_p99_ms={}",
        r.extender_peak_rss_kb, r.prioritize_answered, r.extender_established, r.extender_time_wait,
        ms(r.extender_server.p50), ms(r.extender_server.p99));
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void print_pair(const ScalePairs& pairs) {
  const ScaleRunResult &alone = pairs.alone.back(), &with = pairs.with.back();
  std::string line =
      fmt::format("scale_pair nodes={} limits={} pair={} throughput_ratio={}", pairs.nodes,
                  pairs.limits, pairs.with.size(), number(throughput_ratio(alone, with), 3));
  for (std::size_t which = 0; which < std::size(kLatencies); ++which) {
    line += fmt::format(" p99_ratio_{}={}", kLatencies[which],
                        number(ratio(p99(with, which), p99(alone, which)), 3));
  }
  if (pairs.floor.size() == pairs.with.size()) {
    const ScaleRunResult& floor = pairs.floor.back();
    line += fmt::format(" floor_throughput_ratio={} netscore_to_floor_throughput_ratio={}",
                        number(throughput_ratio(alone, floor), 3),
                        number(throughput_ratio(floor, with), 3));
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void print_summary(const ScalePairs& pairs) {
  std::vector<double> throughput, floor_throughput, to_floor, p99_ratios[std::size(kLatencies)];
  for (std::size_t pair = 0; pair < std::min(pairs.alone.size(), pairs.with.size()); ++pair) {
    const ScaleRunResult &alone = pairs.alone[pair], &with = pairs.with[pair];
    if (const auto r = throughput_ratio(alone, with)) throughput.push_back(*r);
    if (pair < pairs.floor.size()) {
      if (const auto r = throughput_ratio(alone, pairs.floor[pair])) floor_throughput.push_back(*r);
      if (const auto r = throughput_ratio(pairs.floor[pair], with)) to_floor.push_back(*r);
    }
    for (std::size_t which = 0; which < std::size(kLatencies); ++which) {
      if (const auto r = ratio(p99(with, which), p99(alone, which)))
        p99_ratios[which].push_back(*r);
    }
  }
  std::string line = fmt::format("scale_summary nodes={} limits={} pairs={}", pairs.nodes,
                                 pairs.limits, pairs.with.size());
  line += median_field(
      "alone_pods_per_s", pairs.alone,
      [](const ScaleRunResult& r) { return std::optional(r.pods_per_s); }, 1);
  line += median_field(
      "netscore_pods_per_s", pairs.with,
      [](const ScaleRunResult& r) { return std::optional(r.pods_per_s); }, 1);
  line += fmt::format(" median_throughput_ratio={}", number(median(throughput), 3));
  if (!pairs.floor.empty()) {
    line += median_field(
        "floor_pods_per_s", pairs.floor,
        [](const ScaleRunResult& r) { return std::optional(r.pods_per_s); }, 1);
    line += fmt::format(
        " median_floor_throughput_ratio={} median_netscore_to_floor_throughput_ratio={}",
        number(median(floor_throughput), 3), number(median(to_floor), 3));
  }
  for (std::size_t which = 0; which < std::size(kLatencies); ++which) {
    line += fmt::format(" median_p99_ratio_{}={}", kLatencies[which],
                        number(median(p99_ratios[which]), 3));
  }
  for (const auto& [side, runs] :
       {std::pair{"alone", &pairs.alone}, std::pair{"floor", &pairs.floor},
        std::pair{"netscore", &pairs.with}}) {
    std::set<std::string> comms;
    for (const auto& run : *runs) {
      for (const auto& [comm, per_pod] : run.cpu_ms_per_pod) comms.insert(comm);
    }
    for (const auto& comm : comms) {
      line += median_field(
          fmt::format("{}_run_cpu_ms_per_pod_{}", side, comm), *runs,
          [&comm](const ScaleRunResult& r) { return cpu_ms_per_pod_of(r, comm); }, 3);
    }
  }
  line += median_field("netscore_added_cpu_ms_per_pod", pairs.with, netscore_cpu_ms_per_pod, 3);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace netscore::sim
