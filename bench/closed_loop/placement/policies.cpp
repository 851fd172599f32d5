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
      flag("hot_utilisation", &LoopParams::hot_utilisation, "a link above this utilisation is hot"),
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
               {"NETSCORE_SCORE_BASIS", "raw"},
               {"NETSCORE_DIRECTION", "receive"},
               {"NETSCORE_CORRECTION", "false"},
               {"NETSCORE_NORMALISATION", "request"}},
       .weight = 1},
      {.name = "previous defaults (sum_over_time + correction)",
       .env = {{"NETSCORE_QUERY_FUNCTION", "sum_over_time"},
               {"NETSCORE_SCORE_BASIS", "raw"},
               {"NETSCORE_DIRECTION", "receive"},
               {"NETSCORE_LEARN_WORKLOADS", "false"},
               {"NETSCORE_SPREAD_WINDOW", "0"}},
       .weight = 1},
      {.name = "netscore defaults"},
      {.name = "defaults, workloads learned", .env = {{"NETSCORE_LEARN_WORKLOADS", "true"}}},
      {.name = "defaults, no burst spreading", .env = {{"NETSCORE_SPREAD_WINDOW", "0"}}},
      {.name = "defaults, range scoring", .env = {{"NETSCORE_NORMALISATION", "range"}}},
      {.name = "defaults, weight 1 (the previous shipped weight)", .weight = 1},
      {.name = "defaults, window 2m", .env = {{"NETSCORE_TIME_RANGE", "2m"}}},
      {.name = "oracle", .kind = PolicyKind::oracle},
  };
}

std::vector<Policy> heterogeneous_policies() {
  return {
      {.name = "kube-scheduler alone", .kind = PolicyKind::scheduler},
      {.name = "fewest pods (baseline)", .kind = PolicyKind::fewest_pods},
      {.name = "raw, receive (previous defaults)",
       .env = {{"NETSCORE_SCORE_BASIS", "raw"}, {"NETSCORE_DIRECTION", "receive"}}},
      {.name = "raw, max", .env = {{"NETSCORE_SCORE_BASIS", "raw"}, {"NETSCORE_DIRECTION", "max"}}},
      {.name = "utilisation, receive",
       .env = {{"NETSCORE_SCORE_BASIS", "utilisation"}, {"NETSCORE_DIRECTION", "receive"}}},
      {.name = "utilisation, max (netscore defaults)"},
      {.name = "oracle", .kind = PolicyKind::oracle},
      {.name = "utilisation oracle", .kind = PolicyKind::utilisation_oracle},
  };
}

std::vector<Policy> diagnostic_policies() {
  return {
      {.name = "blind oracle, pod unknown", .kind = PolicyKind::blind_oracle},
      {.name = "blind oracle, pod priced 1x the mean",
       .kind = PolicyKind::blind_oracle,
       .blind_price = 1},
      {.name = "blind oracle, pod priced 4x the mean",
       .kind = PolicyKind::blind_oracle,
       .blind_price = 4},
      {.name = "true utilisation as extender scores", .kind = PolicyKind::utilisation_scores},
      {.name = "true utilisation as extender scores, range",
       .kind = PolicyKind::utilisation_scores,
       .env = {{"NETSCORE_NORMALISATION", "range"}}},
      {.name = "true utilisation + 4x the mean pod as extender scores",
       .kind = PolicyKind::utilisation_scores,
       .blind_price = 4},
      {.name = "true utilisation + the pod as extender scores",
       .kind = PolicyKind::utilisation_scores,
       .knows_pod = true},
      {.name = "true utilisation as extender scores, 0 at a full link",
       .kind = PolicyKind::utilisation_scores,
       .full_scale = 1},
      {.name = "true utilisation + 4x the mean pod as extender scores, 0 at a full link",
       .kind = PolicyKind::utilisation_scores,
       .blind_price = 4,
       .full_scale = 1},
  };
}

std::string select_policies(std::string_view list, std::vector<Policy>& out) {
  std::vector<Policy> all = standard_policies();
  auto more = heterogeneous_policies();
  for (auto& policy : diagnostic_policies()) more.push_back(std::move(policy));
  for (auto& policy : more) {
    if (std::none_of(all.begin(), all.end(),
                     [&](const Policy& p) { return p.name == policy.name; }))
      all.push_back(std::move(policy));
  }
  while (!list.empty()) {
    const Policy* match = nullptr;
    for (const auto& policy : all) {
      const std::string_view name = policy.name;
      if (list.starts_with(name) && (list.size() == name.size() || list[name.size()] == ',') &&
          (match == nullptr || name.size() > match->name.size()))
        match = &policy;
    }
    if (match == nullptr) return "--policies: no policy named at \"" + std::string(list) + "\"";
    out.push_back(*match);
    list.remove_prefix(std::min(list.size(), match->name.size() + 1));
    while (list.starts_with(' ')) list.remove_prefix(1);
  }
  return {};
}

std::string add_env_policy(std::string_view settings, std::vector<Policy>& out) {
  Policy policy{.name = std::string(settings)};
  while (!settings.empty()) {
    const auto end = std::min(settings.find(';'), settings.size());
    const std::string_view setting = settings.substr(0, end);
    const auto eq = setting.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return "--netscore-env: expected NAME=VALUE, got \"" + std::string(setting) + "\"";
    policy.env[std::string(setting.substr(0, eq))] = std::string(setting.substr(eq + 1));
    settings.remove_prefix(std::min(settings.size(), end + 1));
  }
  out.push_back(std::move(policy));
  return {};
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

std::string link_table(const std::vector<RunResult>& results) {
  std::string out =
      "| policy | hot link-s | saturated link-s | peak utilisation (mean, p99, max) | pods per "
      "node (slower, fastest links) |\n"
      "|---|---|---|---|---|\n";
  for (const auto& r : results) {
    out += fmt::format("| {} | {:.0f} | {:.0f} | {:.2f}, {:.2f}, {:.2f} | {:.1f}, {:.1f} |\n",
                       r.policy, r.balance.hot_link_seconds, r.balance.saturated_link_seconds,
                       r.balance.mean_peak_utilisation, r.balance.p99_peak_utilisation,
                       r.balance.max_utilisation, r.balance.pods_per_slow_node,
                       r.balance.pods_per_fast_node);
  }
  return out;
}

std::string policies_help() {
  std::string out =
      "policies (default: the first list, or the second when nodes have a link speed):\n";
  const auto list = [&](const std::vector<Policy>& policies) {
    for (const auto& policy : policies) out += "  " + policy.name + "\n";
  };
  list(standard_policies());
  out += "  --\n";
  list(heterogeneous_policies());
  out += "  -- (diagnostics)\n";
  list(diagnostic_policies());
  return out;
}

}  // namespace netscore::sim
