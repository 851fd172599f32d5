#include "tests/support/command_line.h"

#include <algorithm>
#include <exception>
#include <ostream>
#include <string>
#include <string_view>

#include <boost/program_options.hpp>

namespace netscore::testing {
namespace {

// Guessing would let --node stand for --nodes: a typo must fail, not pick a flag.
constexpr int kStyle =
    po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

}  // namespace

std::optional<int> parse_command_line(int argc, const char* const* argv,
                                      const po::options_description& options,
                                      std::string_view usage, std::ostream& out,
                                      std::ostream& err) {
  const std::string program = argc > 0 ? argv[0] : "netscore";
  // Asked before the parse, so that --help answers even beside a flag the parse would refuse.
  if (std::any_of(argv + std::min(argc, 1), argv + argc,
                  [](const char* arg) { return std::string_view(arg) == "--help"; })) {
    out << "usage: " << program << " " << usage << "\n" << options;
    return 0;
  }
  try {
    const po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(options).style(kStyle).run();
    // A bare word is a value split from its flag or a flag without its dashes: not ignored.
    for (const auto& word : po::collect_unrecognized(parsed.options, po::include_positional))
      throw po::error("unexpected argument '" + word + "'");
    po::variables_map vm;
    po::store(parsed, vm);
    po::notify(vm);
    return std::nullopt;
  } catch (const std::exception& e) {
    err << program.substr(program.rfind('/') + 1) << ": " << e.what()
        << " (--help lists the flags)\n";
    return 2;
  }
}

}  // namespace netscore::testing
