#include "tests/support/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace netscore::testing {
namespace {

using ::testing::HasSubstr;

// The flags of a tool like netscore-synth.
struct Tool {
  unsigned nodes = 20;
  std::int64_t end = 0;
  double hours = 2;
  bool links = false;
  std::string out;
  po::options_description options{"Flags"};
  std::ostringstream printed;
  std::ostringstream errors;

  Tool() {
    options.add_options()("nodes", number(nodes), "nodes")("end", number(end), "end")(
        "hours", number(hours), "hours")("links", po::bool_switch(&links), "links")(
        "out", po::value(&out)->required(), "out");
  }
  std::optional<int> run(std::initializer_list<const char*> args) {
    std::vector<const char*> argv{"/bin/tool"};
    argv.insert(argv.end(), args);
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), options, "--out FILE",
                              printed, errors);
  }
};

TEST(CommandLineTest, TypedValuesBothSpellings) {
  Tool tool;
  EXPECT_EQ(tool.run({"--nodes", "12", "--end=-5", "--hours", "2.5e-1", "--links", "--out", "f"}),
            std::nullopt);
  EXPECT_EQ(tool.nodes, 12U);
  EXPECT_EQ(tool.end, -5);
  EXPECT_EQ(tool.hours, 0.25);
  EXPECT_TRUE(tool.links);
  EXPECT_EQ(tool.out, "f");
  EXPECT_EQ(tool.errors.str(), "");
}

TEST(CommandLineTest, ABadValueExitsTwoNamingItsFlag) {
  for (const char* bad : {"-1", "12x", "", "4294967296"}) {
    Tool tool;
    EXPECT_EQ(tool.run({"--nodes", bad, "--out", "f"}), 2) << bad;
    EXPECT_THAT(tool.errors.str(), HasSubstr("tool: "));
    EXPECT_THAT(tool.errors.str(), HasSubstr("--nodes")) << bad;
    EXPECT_EQ(tool.nodes, 20U) << "no target is written from a command line with an error";
  }
  Tool nan;
  EXPECT_EQ(nan.run({"--hours=nan", "--out", "f"}), 2);
  EXPECT_THAT(nan.errors.str(), HasSubstr("--hours"));
}

TEST(CommandLineTest, UnknownMissingAndStrayArgumentsExitTwo) {
  Tool unknown;
  EXPECT_EQ(unknown.run({"--node", "3", "--out", "f"}), 2);
  EXPECT_THAT(unknown.errors.str(), HasSubstr("--node"));
  Tool missing;
  EXPECT_EQ(missing.run({"--nodes", "3"}), 2);
  EXPECT_THAT(missing.errors.str(), HasSubstr("--out"));
  Tool stray;
  EXPECT_EQ(stray.run({"--out", "f", "extra"}), 2);
  EXPECT_THAT(stray.errors.str(), HasSubstr("'extra'"));
}

TEST(CommandLineTest, HelpListsTheFlagsAndExitsZero) {
  Tool tool;
  EXPECT_EQ(tool.run({"--nodes=x", "--help"}), 0);
  EXPECT_THAT(tool.printed.str(), HasSubstr("usage: /bin/tool --out FILE\n"));
  EXPECT_THAT(tool.printed.str(), HasSubstr("--nodes"));
  EXPECT_EQ(tool.errors.str(), "");
}

}  // namespace
}  // namespace netscore::testing
