// netscore-prometheus: backfills an OpenMetrics file into a temporary Prometheus on 127.0.0.1,
// prints its URL, and serves until SIGTERM/SIGINT; then stops Prometheus and removes the TSDB.
#include <curl/curl.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "common/signals.h"
#include "tests/support/command_line.h"
#include "tests/support/prometheus_process.h"

int main(int argc, char** argv) {
  namespace po = boost::program_options;
  std::string openmetrics;
  bool print_url = false;
  po::options_description flags("Flags");
  flags.add_options()("openmetrics", po::value(&openmetrics)->required(),
                      "the OpenMetrics file to backfill")(
      "print-url", po::bool_switch(&print_url),
      "print the server's URL on the first line (it always is: kept for the callers that ask)");
  if (const auto exit_status = netscore::testing::parse_command_line(
          argc, argv, flags, "--openmetrics FILE [--print-url]", std::cout, std::cerr))
    return *exit_status;
  const sigset_t signals = netscore::block_termination_signals();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  try {
    netscore::testing::PrometheusProcess prometheus(openmetrics);
    std::printf("%s\n", prometheus.url().c_str());
    std::fflush(stdout);
    int signal = 0;
    sigwait(&signals, &signal);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
  curl_global_cleanup();
  return 0;
}
