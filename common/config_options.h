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

struct Option {
  std::string_view env;
  std::string_view default_value;
  unsigned used_by;
  std::string_view help;
  void (*apply)(Config&, std::string_view);
};

// Every option, in documentation order.
std::span<const Option> config_options();

// A variable renamed for consistency: the old name is still read, with a one-line warning.
struct Renamed {
  std::string_view old_name;
  std::string_view current;
};
std::span<const Renamed> renamed_options();

// The option that sets other options' values (NETSCORE_PROFILE): applied before every other
// variable and flag, which may override what it set.
inline constexpr std::string_view kProfileOption = "NETSCORE_PROFILE";

}  // namespace netscore
