#pragma once

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/config_types.h"
#include "common/duration.h"

namespace netscore {

// One bad variable or flag: `what()` is the single line printed before exiting with status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown for `--help`; the caller prints help_text().
class HelpRequested : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct VariableDoc {
  std::string env;
  std::string flag;
  std::string default_value;
  std::string help;
  std::string when;  // when to change it
  bool essential = false;
};

// A name no longer current: renamed to `current`, or retired (`current` empty) with the rule that
// decides its value now.
struct RetiredDoc {
  std::string env;
  std::string current;
  std::string rule;
};

using Environment = std::map<std::string, std::string, std::less<>>;

// Pure: no process state is read, so every error path is testable.
// Throws ConfigError naming the variable (or flag), the value and what was expected.
Config load_config(Component component, const std::vector<std::string>& args,
                   const Environment& env, std::vector<std::string>* warnings = nullptr);

// How often the traffic per pod is read at first: four refresh intervals (a minute at the shipped
// 15 s), so that a faster refresh reads pods faster too; the reader lengthens it as its reads take.
std::chrono::milliseconds pod_traffic_interval(const Config& config);

// The range of the recent pods' read: four refresh intervals and at least a minute (two samples at
// kube-prometheus' 30 s kubelet scrape interval), at most NETSCORE_TIME_RANGE.
PromDuration pod_traffic_recent_range(const Config& config);

// The range of the rates in the utilisation the descheduler reads and the collector nominates by:
// NETSCORE_REBALANCE_WINDOW, or by default four refresh intervals (a minute at the shipped 15 s,
// four of kube-prometheus' 15 s node-exporter scrapes), at most NETSCORE_TIME_RANGE. Shorter than
// the scores' range: a placement wants what a node carries over a pod's life, a move wants to know
// soon that a link went hot, and soon that it cooled once a pod left.
PromDuration rebalance_window(const Config& config);

// How long a workload whose nominee left gets no other nominee: twenty refresh intervals (five
// minutes at the shipped 15 s, two of the descheduler's looks), so that it follows the collector's
// pace as the window does.
PromDuration rebalance_rest(const Config& config);

// Essential settings first, then advanced ones.
std::vector<VariableDoc> documented_variables(Component component);
std::vector<RetiredDoc> retired_variables();
std::string help_text(Component component, std::string_view program);

// For main(): reads the process environment and argv; prints and exits 0 for --help,
// prints one line and exits 2 for a bad value. Warnings (unknown NETSCORE_* variables, old names)
// go to stderr because logging is not set up before the log level is known.
Config load_config_or_exit(Component component, int argc, char** argv);

}  // namespace netscore
