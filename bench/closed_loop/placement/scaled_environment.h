#pragma once

#include "common/config.h"

// Both closed-loop levels run netscore at a time scale: its refresh interval and the windows
// derived from it divided by the scale, on the policy's values where it sets them.
namespace netscore::sim {

Environment scaled_environment(const Environment& policy_env, double time_scale);

}  // namespace netscore::sim
