#pragma once

#include <csignal>
#include <optional>
#include <string>

#include "common/config.h"

// The collector's long-running objects, wired in one direction: the refresh loop measures,
// the publisher writes the table; with a Kubernetes API server, the watcher's changes reach the
// publisher too and (NETSCORE_REBALANCE_LABEL) the labeler nominates pods for the descheduler.
namespace netscore::collector {

// What the configuration accepts but only building the query or reading the headers file finds
// wrong: the reason, or nullopt.
std::optional<std::string> query_settings_error(const Config& config);

// Builds them, runs until one of `stop_signals` arrives (blocked by the caller), then stops them in
// reverse. Throws what building them throws (a table that cannot be created, a bad URL).
// curl_global_init must have run.
void run_service(const Config& config, const sigset_t& stop_signals, const std::string& user_agent);

}  // namespace netscore::collector
