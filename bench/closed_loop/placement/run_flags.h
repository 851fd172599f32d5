#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/closed_loop/placement/policy.h"
#include "bench/closed_loop/workload/workload.h"
#include "bench/flags/flags.h"

// The command line the closed-loop commands share: the workload's flags, the loop's, and the
// policies to compare (--policies by name, --netscore-env for netscore with settings of one's
// own), on top of each command's own options.
namespace netscore::sim {

struct RunFlags {
  WorkloadParams workload{};
  LoopParams loop{};
  // After parse_run_flags: the policies named, or the default list for the workload (standard, or
  // heterogeneous when nodes have link speeds), then one per --netscore-env.
  std::vector<Policy> policies{};
};

// --policies=NAME,NAME...: the policies named (select_policies) are appended to `out`.
void add_policies_option(flags::po::options_description& options, std::vector<Policy>& out);

// Parses argv into `run` and the command's own `options` (their targets), as flags::parse: an
// exit code when the command should stop (0 after --help, 2 after a bad flag or an invalid
// workload, the error on `err`), nullopt to go on. `usage` opens --help, followed by the command's
// own options, the policies, and the workload and loop flags.
std::optional<int> parse_run_flags(int argc, const char* const* argv,
                                   const flags::po::options_description& options,
                                   std::string_view usage, RunFlags& run, std::ostream& out,
                                   std::ostream& err);

}  // namespace netscore::sim
