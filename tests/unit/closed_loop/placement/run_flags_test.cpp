#include "bench/closed_loop/placement/run_flags.h"

#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "bench/closed_loop/placement/policy.h"
#include "bench/flags/flags.h"

namespace netscore::sim {
namespace {

// A closed-loop command line as main() gets it, through parse_run_flags with one option of the
// command's own (--svg).
struct Command {
  std::optional<int> run(std::vector<std::string> words) {
    words.insert(words.begin(), "netscore-closed-loop");
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    flags::po::options_description options;
    options.add_options()("svg", flags::text(svg), "plot");
    return parse_run_flags(static_cast<int>(argv.size()), argv.data(), options, "usage\n", parsed,
                           out, err);
  }
  RunFlags parsed;
  std::string svg = "closed-loop.svg";
  std::ostringstream out, err;
};

std::vector<std::string> names(const std::vector<Policy>& policies) {
  std::vector<std::string> out;
  for (const auto& policy : policies) out.push_back(policy.name);
  return out;
}

TEST(RunFlagsTest, ABadValueExitsTwoNamingTheFlag) {
  for (const auto& [bad, flag] : std::vector<std::pair<std::string, std::string>>{
           {"--seed=abc", "'--seed'"},
           {"--cycle-s=fast", "'--cycle-s'"},
           {"--topology-spread=maybe", "'--topology-spread'"},
           {"--policies=no such policy", "--policies"},
           {"--scenario=fast", "--scenario"},
           {"--netscore-env=NOEQUALS", "--netscore-env"}}) {
    Command command;
    EXPECT_EQ(command.run({bad}), 2) << bad;
    EXPECT_NE(command.err.str().find(flag), std::string::npos) << command.err.str();
  }
  Command invalid;
  EXPECT_EQ(invalid.run({"--nodes=0"}), 2);
  EXPECT_NE(invalid.err.str().find("nodes"), std::string::npos) << invalid.err.str();
}

TEST(RunFlagsTest, TheScenarioAppliesFirstAndLaterFlagsOverrideItWhateverTheirOrder) {
  Command command;
  ASSERT_EQ(command.run({"--slow-speed-factor=0.25", "--scenario=heterogeneous", "--nodes=12",
                         "--cycle-s=5ms", "--svg=x.svg"}),
            std::nullopt)
      << command.err.str();
  EXPECT_EQ(command.parsed.workload.slow_speed_factor, 0.25);
  EXPECT_GT(command.parsed.workload.link_speed, 0) << "the scenario's own settings";
  EXPECT_EQ(command.parsed.workload.nodes, 12U);
  EXPECT_EQ(command.parsed.loop.cycle_s, 0.005);
  EXPECT_EQ(command.svg, "x.svg");
  EXPECT_EQ(names(command.parsed.policies), names(heterogeneous_policies()))
      << "links with speeds: the heterogeneous list by default";
}

TEST(RunFlagsTest, NamedPoliciesThenOnePerNetscoreEnv) {
  Command command;
  ASSERT_EQ(command.run({"--netscore-env=NETSCORE_SPREAD_WINDOW=0",
                         "--policies=oracle,fewest pods (baseline)",
                         "--netscore-env=NETSCORE_TIME_RANGE=2m;NETSCORE_DIRECTION=max"}),
            std::nullopt)
      << command.err.str();
  EXPECT_EQ(
      names(command.parsed.policies),
      (std::vector<std::string>{"oracle", "fewest pods (baseline)", "NETSCORE_SPREAD_WINDOW=0",
                                "NETSCORE_TIME_RANGE=2m;NETSCORE_DIRECTION=max"}));
  EXPECT_EQ(command.parsed.policies.back().env.at("NETSCORE_DIRECTION"), "max");
  Command defaults;
  ASSERT_EQ(defaults.run({}), std::nullopt);
  EXPECT_EQ(names(defaults.parsed.policies), names(standard_policies()));
}

TEST(RunFlagsTest, HelpListsThePoliciesAndEveryFlag) {
  Command command;
  EXPECT_EQ(command.run({"--help"}), 0);
  for (const auto* text : {"usage\n", "--svg", "--policies", "--netscore-env", "oracle",
                           "--duration-s=", "--cycle-s=", "--topology-spread="}) {
    EXPECT_NE(command.out.str().find(text), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace netscore::sim
