#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/config_types.h"

// The table of NETSCORE_* options (name, default, components, documentation, parser), apart from
// the loader in config.cpp that reads them from the environment and flags and reports errors.
namespace netscore {

constexpr unsigned kBoth =
    static_cast<unsigned>(Component::collector) | static_cast<unsigned>(Component::extender);
constexpr unsigned kCollector = static_cast<unsigned>(Component::collector);
constexpr unsigned kExtender = static_cast<unsigned>(Component::extender);

// Essential: what an operator sets for a first deployment or changes as the cluster changes; the
// reference and --help list these first. Advanced: the rest, each for one situation its `when`
// names.
enum class Tier { essential, advanced };

struct Option {
  std::string_view env;
  std::string_view default_value;
  unsigned used_by;
  Tier tier;
  std::string_view help;
  std::string_view when;  // one sentence: when to change it
  void (*apply)(Config&, std::string_view);
};

// Every option, in documentation order.
std::span<const Option> config_options();

// A variable no longer current, still accepted for one release with a one-line warning. Renamed
// (`current` set): its value goes to the current option. Retired (`current` empty): ignored, and
// the warning quotes `rule`, what decides the value now.
struct Retired {
  std::string_view old_name;
  std::string_view current;
  std::string_view rule;
};
std::span<const Retired> retired_options();

// The option that sets other options' values (NETSCORE_PROFILE): applied before every other
// variable and flag, which may override what it set.
inline constexpr std::string_view kProfileOption = "NETSCORE_PROFILE";

}  // namespace netscore
