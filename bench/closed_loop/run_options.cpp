// The simulators' command line and report: the policies compared, the loop's flags, and the
// results table. Shared by the virtual-time and the real-time tools.
#include <algorithm>
#include <charconv>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "bench/closed_loop/simulator.h"

namespace netscore::sim {
namespace {

struct LoopFlag {
  std::string_view name;
  std::function<std::string(LoopParams&, std::string_view)> apply;
  std::string_view help;
};

template <class T>
std::string parse_into(T& out, std::string_view text) {
  if constexpr (std::is_same_v<T, bool>) {
    if (text != "true" && text != "false") return "expected true or false";
    out = text == "true";
    return {};
  } else {
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) return "expected a number";
    out = value;
    return {};
  }
}

// A flag named after the LoopParams member it sets (dashes on the command line).
template <class T>
LoopFlag flag(std::string_view name, T LoopParams::*member, std::string_view help) {
  return {name, [member](LoopParams& p, std::string_view v) { return parse_into(p.*member, v); },
          help};
}

const std::vector<LoopFlag>& loop_flags() {
  static const std::vector<LoopFlag> flags{
      flag("scrape_s", &LoopParams::scrape_s, "Prometheus scrape interval (s)"),
      flag("time_scale", &LoopParams::time_scale,
           "the collector's refresh and window are divided by this"),
      flag("cycle_s", &LoopParams::cycle_s, "scheduling cycle per pod (s)"),
      flag("visible_s", &LoopParams::visible_s, "binding to the collector's watch (s)"),
      flag("sample_s", &LoopParams::sample_s, "step of the balance metrics (s)"),
      flag("hot_factor", &LoopParams::hot_factor, "a node above this x the mean is hot"),
      flag("topology_spread", &LoopParams::topology_spread,
           "the default PodTopologySpread constraint"),
      flag("shipped_weight", &LoopParams::shipped_weight,
           "extender weight of the shipped configuration"),
      flag("tie_seed", &LoopParams::tie_seed, "seed of kube-scheduler's random tie-break"),
  };
  return flags;
}

}  // namespace

std::vector<Policy> standard_policies() {
  return {
      {.name = "kube-scheduler alone", .kind = PolicyKind::scheduler},
      {.name = "fewest pods (baseline)", .kind = PolicyKind::fewest_pods},
      {.name = "seed scores",
       .env = {{"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
               {"NETSCORE_CORRECTION", "false"},
               {"NETSCORE_SCORING", "request"}}},
      {.name = "previous defaults (sum_over_time + correction)",
       .env = {{"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
               {"NETSCORE_LEARN_WORKLOADS", "false"},
               {"NETSCORE_SPREAD_WINDOW", "0"}}},
      {.name = "netscore defaults"},
      {.name = "defaults, workloads learned", .env = {{"NETSCORE_LEARN_WORKLOADS", "true"}}},
      {.name = "defaults, no burst spreading", .env = {{"NETSCORE_SPREAD_WINDOW", "0"}}},
      {.name = "defaults, range scoring", .env = {{"NETSCORE_SCORING", "range"}}},
      {.name = "defaults, range scoring, weight 3",
       .env = {{"NETSCORE_SCORING", "range"}},
       .weight = 3},
      {.name = "defaults, window 2m", .env = {{"NETSCORE_TIME_RANGE", "2m"}}},
      {.name = "oracle", .kind = PolicyKind::oracle},
  };
}

std::string apply_loop_flag(LoopParams& params, std::string_view name, std::string_view value) {
  std::string member(name);
  std::replace(member.begin(), member.end(), '-', '_');
  for (const auto& flag : loop_flags()) {
    if (flag.name != member) continue;
    const std::string error = flag.apply(params, value);
    return error.empty() ? error
                         : "--" + std::string(name) + "=" + std::string(value) + ": " + error;
  }
  return "unknown flag --" + std::string(name);
}

std::string apply_run_flag(WorkloadParams& workload, LoopParams& loop, std::string_view name,
                           std::string_view value) {
  const std::string error = apply_flag(workload, name, value);
  return error.starts_with("unknown") ? apply_loop_flag(loop, name, value) : error;
}

std::string loop_help() {
  std::string out;
  for (const auto& flag : loop_flags()) out += fmt::format("  --{:<18} {}\n", flag.name, flag.help);
  return out;
}

std::string results_table(const std::vector<RunResult>& results) {
  std::string out =
      "| policy | peak/mean | CV | p99 peak/mean | hot node-s | burst max on one node "
      "(mean, max) |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    out += fmt::format("| {} | {:.2f} | {:.3f} | {:.2f} | {:.1f} | {:.2f}, {} |\n", r.policy,
                       r.balance.peak_to_mean, r.balance.cv, r.balance.p99_peak_to_mean,
                       r.balance.hot_node_seconds, r.bursts.mean_max_on_one_node,
                       r.bursts.max_on_one_node);
  }
  return out;
}

}  // namespace netscore::sim
