#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/any.hpp>
#include <boost/program_options.hpp>

#include "common/parse_number.h"

// The benchmarks' command lines, on Boost.Program_options: `--name=value` (or `--name value`),
// typed values read whole, seconds with a unit, --help, and every bad flag reported by name with
// exit status 2 instead of an exception. Each benchmark main declares its options and calls
// parse().
namespace netscore::flags {

namespace po = boost::program_options;

// A number read whole with std::from_chars: no trailing text, no sign on an unsigned type, finite.
template <class T>
struct Number {
  T value{};
};

// Seconds: a number ("90", "1.5e3") or a number with a unit: ms, s, m, h ("500ms", "4m").
struct Seconds {
  double value = 0;
};

std::optional<double> parse_seconds(std::string_view text);

using netscore::parse_number;

// Program_options' hooks for the two types (found by argument-dependent lookup).
template <class T>
void validate(boost::any& out, const std::vector<std::string>& values, Number<T>*, int) {
  const std::string& text = po::validators::get_single_string(values);
  const auto parsed = parse_number<T>(text);
  if (!parsed) throw po::invalid_option_value(text);
  out = Number<T>{*parsed};
}
void validate(boost::any& out, const std::vector<std::string>& values, Seconds*, int);

// Options that write into `target` once the command line is valid as a whole.
template <class T>
po::typed_value<Number<T>>* number(T& target) {
  return po::value<Number<T>>()->notifier([&target](const Number<T>& n) { target = n.value; });
}
po::typed_value<Seconds>* seconds(double& target);
po::typed_value<bool>* boolean(bool& target);  // true/false (also 1/0, yes/no, on/off)
po::typed_value<std::string>* text(std::string& target);

// The option for a target of any of those types: a number, true/false or text; seconds when
// `in_seconds` (a double only).
template <class T>
po::value_semantic* value_of(T& target, bool in_seconds = false) {
  if constexpr (std::is_same_v<T, bool>) {
    return boolean(target);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return text(target);
  } else if constexpr (std::is_same_v<T, double>) {
    if (in_seconds) return seconds(target);
    return number(target);
  } else {
    return number(target);
  }
}

// One option per entry of a table describing a parameters struct: {name, member (a std::variant
// of pointers to members), help, in_seconds}, each writing into that member of `params`.
template <class Params, class Entry, std::size_t N>
void add_members(po::options_description& options, Params& params, const Entry (&table)[N]) {
  for (const auto& entry : table) {
    std::visit(
        [&](auto member) {
          options.add_options()(std::string(entry.name).c_str(),
                                value_of(params.*member, entry.in_seconds),
                                std::string(entry.help).c_str());
        },
        entry.member);
  }
}

// Parses argv[1..argc). --help prints `help` to `out`: 0. A bad or unknown flag, a missing or
// malformed value, or an error thrown by a notifier prints "PROGRAM: what, naming the flag" to
// `err`: 2. nullopt: the targets are set, go on. `before_notify` sees the parsed flags before
// any target is written (where one flag, such as a scenario, sets defaults the others override).
std::optional<int> parse(int argc, const char* const* argv, const po::options_description& options,
                         std::string_view help, std::ostream& out, std::ostream& err,
                         const std::function<void(const po::variables_map&)>& before_notify = {});

// The same for a list of arguments without a program name: an error message, empty on success.
std::string apply(const po::options_description& options, std::initializer_list<std::string> args,
                  const std::function<void(const po::variables_map&)>& before_notify = {});

// Program_options' own listing of `options` (name, value, description).
std::string describe(const po::options_description& options);

}  // namespace netscore::flags
