#include "bench/flags/flags.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/any.hpp>
#include <boost/program_options.hpp>

namespace netscore::flags {
namespace {

// Guessing would let --dur stand for --duration-s: a typo must fail, not pick a flag.
constexpr int kStyle =
    po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

void store_and_notify(const po::parsed_options& parsed, po::variables_map& vm,
                      const std::function<void(const po::variables_map&)>& before_notify) {
  // Every flag is --name=value: a bare word is a mistake (a value split from its flag), not
  // something to ignore.
  for (const auto& word : po::collect_unrecognized(parsed.options, po::include_positional))
    throw po::error("unexpected argument '" + word + "'");
  po::store(parsed, vm);
  if (before_notify) before_notify(vm);
  po::notify(vm);
}

}  // namespace

std::optional<double> parse_seconds(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  // "ms" before "s" and "m": the longest suffix that matches.
  for (const Unit unit : {Unit{"ms", 1e-3}, Unit{"s", 1}, Unit{"m", 60}, Unit{"h", 3600}}) {
    if (!text.ends_with(unit.suffix)) continue;
    const auto n = parse_number<double>(text.substr(0, text.size() - unit.suffix.size()));
    return n ? std::optional<double>(*n * unit.seconds) : std::nullopt;
  }
  return parse_number<double>(text);
}

void validate(boost::any& out, const std::vector<std::string>& values, Seconds*, int) {
  const std::string& text = po::validators::get_single_string(values);
  const auto parsed = parse_seconds(text);
  if (!parsed) throw po::invalid_option_value(text);
  out = Seconds{*parsed};
}

po::typed_value<Seconds>* seconds(double& target) {
  return po::value<Seconds>()->notifier([&target](const Seconds& s) { target = s.value; });
}

po::typed_value<bool>* boolean(bool& target) {
  return po::value<bool>(&target);
}

po::typed_value<std::string>* text(std::string& target) {
  return po::value<std::string>(&target);
}

std::optional<int> parse(int argc, const char* const* argv, const po::options_description& options,
                         std::string_view help, std::ostream& out, std::ostream& err,
                         const std::function<void(const po::variables_map&)>& before_notify) {
  const std::string program = argc > 0 ? argv[0] : "benchmark";
  // Asked before the parse, so that --help answers even beside a flag the parse would refuse.
  if (argc > 1 && std::any_of(argv + 1, argv + argc,
                              [](const char* arg) { return std::string_view(arg) == "--help"; })) {
    out << help;
    return 0;
  }
  try {
    po::variables_map vm;
    store_and_notify(po::command_line_parser(argc, argv).options(options).style(kStyle).run(), vm,
                     before_notify);
    return std::nullopt;
  } catch (const std::exception& e) {
    err << program.substr(program.rfind('/') + 1) << ": " << e.what()
        << " (--help lists the flags)\n";
    return 2;
  }
}

std::string apply(const po::options_description& options, std::initializer_list<std::string> args,
                  const std::function<void(const po::variables_map&)>& before_notify) {
  try {
    po::variables_map vm;
    store_and_notify(po::command_line_parser(std::vector<std::string>(args))
                         .options(options)
                         .style(kStyle)
                         .run(),
                     vm, before_notify);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string describe(const po::options_description& options) {
  std::ostringstream out;
  out << options;
  return out.str();
}

}  // namespace netscore::flags
