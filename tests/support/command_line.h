#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/any.hpp>
#include <boost/program_options.hpp>

#include "common/parse_number.h"

// The command lines of the support tools (netscore-synth, netscore-prometheus), on
// Boost.Program_options: `--name value` or `--name=value`, numbers read whole, --help, and a bad
// flag reported by name with exit status 2.
namespace netscore::testing {

namespace po = boost::program_options;

// A number flag read with parse_number: Program_options' own lexical_cast would turn "-1" into
// 4294967295 for an unsigned.
template <class T>
struct Number {
  T value{};
};

// Program_options' hook for Number (found by argument-dependent lookup).
template <class T>
void validate(boost::any& out, const std::vector<std::string>& values, Number<T>*, int) {
  const std::string& text = po::validators::get_single_string(values);
  const std::optional<T> parsed = parse_number<T>(text);
  if (!parsed) throw po::invalid_option_value(text);
  out = Number<T>{*parsed};
}

// An option that writes its number into `target` once the whole command line is valid.
template <class T>
po::typed_value<Number<T>>* number(T& target) {
  return po::value<Number<T>>()->notifier([&target](const Number<T>& n) { target = n.value; });
}

// Parses argv[1..argc). --help prints `usage` and the options to `out`: 0. An unknown flag, a
// missing or malformed value, a bare word, or a po::error thrown by a notifier prints
// "PROGRAM: what, naming the flag (--help lists the flags)" to `err`: 2. nullopt: the targets are
// set, go on.
std::optional<int> parse_command_line(int argc, const char* const* argv,
                                      const po::options_description& options,
                                      std::string_view usage, std::ostream& out, std::ostream& err);

}  // namespace netscore::testing
