#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/binary_process.h"

// What the tests and the soak that run netscore-collector and netscore-extender as child processes
// share: the collector's environment against a synthetic-traffic Prometheus, and finding the
// port an extender started with NETSCORE_LISTEN=127.0.0.1:0 listens on.
namespace netscore::testing {

// NETSCORE_PROMETHEUS_URL, NETSCORE_INTERFACE (the synthetic traffic's), NETSCORE_SHM_NAME,
// NETSCORE_REFRESH_INTERVAL and debug logging.
std::vector<std::string> collector_env(const std::string& prometheus_url,
                                       const std::string& shm_name,
                                       const std::string& refresh_interval);

// The port from the extender's "listening address=127.0.0.1:PORT ..." line, empty until logged.
std::string logged_port(const std::string& log);

// "http://127.0.0.1:<port>" once the extender has logged its port; empty when it has not
// within the deadline.
std::string extender_base_url(const BinaryProcess& extender, std::chrono::milliseconds deadline);

}  // namespace netscore::testing
