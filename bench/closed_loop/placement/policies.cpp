// The policies both closed-loop levels compare, by name.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/closed_loop/placement/policy.h"

namespace netscore::sim {

std::vector<Policy> standard_policies() {
  return {
      {.name = "kube-scheduler alone", .kind = PolicyKind::scheduler},
      {.name = "fewest pods (baseline)", .kind = PolicyKind::fewest_pods},
      {.name = "netscore defaults"},
      {.name = "defaults, no workload learning", .env = {{"NETSCORE_LEARN_WORKLOADS", "false"}}},
      {.name = "defaults, no burst spreading", .env = {{"NETSCORE_SPREAD_WINDOW", "0"}}},
      {.name = "defaults, weight 1 (the previous shipped weight)", .weight = 1},
      {.name = "oracle", .kind = PolicyKind::oracle},
      {.name = "information-fair oracle", .kind = PolicyKind::informed_oracle},
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

std::string select_policies(std::string_view list, std::vector<Policy>& out) {
  std::vector<Policy> all = standard_policies();
  for (auto& policy : heterogeneous_policies()) {
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

std::string policies_help() {
  std::string out =
      "policies (default: the first list, or the second when nodes have a link speed):\n";
  const auto list = [&](const std::vector<Policy>& policies) {
    for (const auto& policy : policies) out += "  " + policy.name + "\n";
  };
  list(standard_policies());
  out += "  --\n";
  list(heterogeneous_policies());
  return out;
}

}  // namespace netscore::sim
