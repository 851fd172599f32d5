#include "bench/closed_loop/placement/run_flags.h"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/workload/workload.h"
#include "bench/closed_loop/workload/workload_flags.h"
#include "bench/flags/flags.h"

namespace netscore::sim {

void add_policies_option(flags::po::options_description& options, std::vector<Policy>& out) {
  options.add_options()("policies",
                        flags::po::value<std::string>()->notifier([&out](const std::string& list) {
                          if (auto error = select_policies(list, out); !error.empty())
                            throw flags::po::error(error);
                        }),
                        "the policies to compare, by name, comma-separated");
}

std::optional<int> parse_run_flags(int argc, const char* const* argv,
                                   const flags::po::options_description& options,
                                   std::string_view usage, RunFlags& run, std::ostream& out,
                                   std::ostream& err) {
  namespace po = flags::po;
  std::vector<Policy> named, with_env;
  po::options_description all;
  all.add(options);
  add_policies_option(all, named);
  all.add_options()(
      "netscore-env",
      po::value<std::vector<std::string>>()->composing()->notifier(
          [&](const std::vector<std::string>& settings) {
            for (const auto& one : settings) {
              if (auto error = add_env_policy(one, with_env); !error.empty())
                throw po::error(error);
            }
          }),
      "a netscore policy with NAME=VALUE;NAME=VALUE on the shipped defaults, after the others "
      "(repeatable)");
  add_workload_options(all, run.workload);
  add_loop_options(all, run.loop);
  const std::string help = std::string(usage) + flags::describe(options) +
                           "  --policies=NAME,NAME...\n"
                           "  --netscore-env=NAME=VALUE;NAME=VALUE...  a netscore policy with "
                           "those settings, after the others (repeatable)\n" +
                           policies_help() + "workload:\n" + workload_help() + "loop:\n" +
                           loop_help();
  if (const auto stop =
          flags::parse(argc, argv, all, help, out, err,
                       [&](const po::variables_map& vm) { apply_scenario_flag(vm, run.workload); }))
    return stop;
  if (const std::string error = validate(run.workload); !error.empty()) {
    err << error << "\n";
    return 2;
  }
  run.policies = !named.empty()                ? named
                 : run.workload.link_speed > 0 ? heterogeneous_policies()
                                               : standard_policies();
  run.policies.insert(run.policies.end(), with_env.begin(), with_env.end());
  return std::nullopt;
}

}  // namespace netscore::sim
