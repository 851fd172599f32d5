#pragma once

#include "common/config.h"

// Both closed-loop levels run netscore at a time scale: its refresh interval and the windows
// derived from it divided by the scale, on the policy's values where it sets them.
namespace netscore::sim {

Environment scaled_environment(const Environment& policy_env, double time_scale);

// How long a change of a node's traffic takes to reach the score table at the soonest, in seconds:
// a scrape, then a refresh of the collector (`collector`: its settings at the run's time scale).
double table_lag_s(const Config& collector, double scrape_s);

}  // namespace netscore::sim
