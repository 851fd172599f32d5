#pragma once

#include "bench/closed_loop/workload/workload.h"
#include "bench/flags/flags.h"

// The workload's parameters as the commands' flags: one --name=value per WorkloadParams member
// (durations in seconds take a unit: 240, 4m) and --scenario, from one table (workload_help()
// lists it).
namespace netscore::sim {

// Adds the flags, writing into `params` once the command line is valid.
void add_workload_options(flags::po::options_description& options, WorkloadParams& params);
// Applies --scenario, if given, before the other flags are written (flags::parse's
// before_notify), so that they override it whatever their order; throws flags::po::error for an
// unknown scenario.
void apply_scenario_flag(const flags::po::variables_map& flags, WorkloadParams& params);

}  // namespace netscore::sim
