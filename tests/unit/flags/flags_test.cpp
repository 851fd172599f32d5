#include "bench/flags/flags.h"

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace netscore::flags {
namespace {

// A command line as main() gets it.
struct Argv {
  explicit Argv(std::vector<std::string> words) : words_(std::move(words)) {
    words_.insert(words_.begin(), "/path/to/netscore-tool");
    for (auto& word : words_) pointers_.push_back(word.data());
  }
  int argc() const { return static_cast<int>(pointers_.size()); }
  const char* const* argv() const { return pointers_.data(); }

 private:
  std::vector<std::string> words_;
  std::vector<char*> pointers_;
};

struct Tool {
  std::uint64_t seed = 7;
  unsigned nodes = 30;
  double fraction = 0.5;
  double duration_s = 1800;
  bool spread = true;
  std::string env = "unset";
  po::options_description options;

  Tool() {
    options.add_options()("seed", number(seed), "seed")("nodes", number(nodes), "nodes")(
        "fraction", number(fraction), "fraction")("duration-s", seconds(duration_s), "seconds")(
        "spread", boolean(spread), "spread")("env", text(env), "env");
  }

  // The exit code parse() asks for (nullopt: go on), and what it printed.
  std::optional<int> run(std::vector<std::string> words) {
    const Argv args(std::move(words));
    out.str({});
    err.str({});
    return parse(args.argc(), args.argv(), options, "usage: netscore-tool\n", out, err);
  }
  std::ostringstream out, err;
};

TEST(FlagsTest, TypedValuesInEitherSpelling) {
  Tool tool;
  EXPECT_EQ(tool.run({"--seed=18446744073709551615", "--nodes", "12", "--fraction=2.5e-1",
                      "--spread=false", "--env=A=1;B=2"}),
            std::nullopt)
      << tool.err.str();
  EXPECT_EQ(tool.seed, 18446744073709551615ULL);
  EXPECT_EQ(tool.nodes, 12U);
  EXPECT_EQ(tool.fraction, 0.25);
  EXPECT_FALSE(tool.spread);
  EXPECT_EQ(tool.env, "A=1;B=2") << "the value runs from the first '=' on";
  EXPECT_EQ(tool.duration_s, 1800) << "an absent flag keeps its default";
}

TEST(FlagsTest, ABadValueExitsTwoNamingTheFlagAndChangesNothing) {
  for (const char* bad_flag : {"--nodes=12x", "--nodes=-1", "--fraction=nan", "--fraction=inf",
                               "--duration-s=4 minutes", "--spread=maybe"}) {
    const std::string bad = bad_flag;
    Tool tool;
    EXPECT_EQ(tool.run({"--seed=1", bad}), 2) << bad;
    const std::string flag = bad.substr(0, bad.find('='));
    EXPECT_NE(tool.err.str().find("'" + flag + "'"), std::string::npos) << tool.err.str();
    EXPECT_EQ(tool.err.str().rfind("netscore-tool: ", 0), 0U) << tool.err.str();
    EXPECT_EQ(tool.seed, 7U) << bad << ": no target is written unless the whole line is valid";
    EXPECT_EQ(tool.nodes, 30U);
  }
}

TEST(FlagsTest, UnknownGuessedMissingOrBareArgumentsExitTwo) {
  for (const auto& words : std::vector<std::vector<std::string>>{
           {"--no-such-flag=1"}, {"--dur=5"}, {"--seed"}, {"--seed=1", "stray"}}) {
    Tool tool;
    EXPECT_EQ(tool.run(words), 2) << words.back();
    EXPECT_FALSE(tool.err.str().empty());
  }
  Tool tool;
  tool.run({"--no-such-flag=1"});
  EXPECT_NE(tool.err.str().find("--no-such-flag"), std::string::npos) << tool.err.str();
}

TEST(FlagsTest, HelpPrintsTheUsageAndExitsZero) {
  Tool tool;
  EXPECT_EQ(tool.run({"--seed=bad", "--help"}), 0);
  EXPECT_EQ(tool.out.str(), "usage: netscore-tool\n");
  EXPECT_EQ(tool.err.str(), "");
}

TEST(FlagsTest, SecondsTakeAUnit) {
  EXPECT_EQ(parse_seconds("240"), 240);
  EXPECT_EQ(parse_seconds("1.5"), 1.5);
  EXPECT_EQ(parse_seconds("240s"), 240);
  EXPECT_EQ(parse_seconds("4m"), 240);
  EXPECT_EQ(parse_seconds("2h"), 7200);
  EXPECT_EQ(parse_seconds("500ms"), 0.5);
  EXPECT_EQ(parse_seconds("5x"), std::nullopt);
  EXPECT_EQ(parse_seconds("m"), std::nullopt);
  Tool tool;
  EXPECT_EQ(tool.run({"--duration-s=4m"}), std::nullopt);
  EXPECT_EQ(tool.duration_s, 240);
}

TEST(FlagsTest, BeforeNotifySeesTheFlagsBeforeAnyTargetIsWritten) {
  Tool tool;
  unsigned nodes_seen = 0;
  EXPECT_EQ(apply(tool.options, {"--nodes=9"},
                  [&](const po::variables_map& vm) {
                    nodes_seen = tool.nodes;
                    EXPECT_EQ(vm.count("nodes"), 1U);
                  }),
            "");
  EXPECT_EQ(nodes_seen, 30U);
  EXPECT_EQ(tool.nodes, 9U);
  EXPECT_NE(apply(tool.options, {"--nodes=x"}).find("--nodes"), std::string::npos);
}

}  // namespace
}  // namespace netscore::flags
