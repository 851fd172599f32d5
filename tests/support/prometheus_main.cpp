// netscore-prometheus: backfills an OpenMetrics file into a temporary Prometheus on 127.0.0.1,
// prints its URL, and serves until SIGTERM/SIGINT; then stops Prometheus and removes the TSDB.
#include <curl/curl.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "common/signals.h"
#include "tests/support/prometheus_process.h"

int main(int argc, char** argv) {
  std::string openmetrics;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--openmetrics" && i + 1 < argc) {
      openmetrics = argv[++i];
    } else if (arg != "--print-url") {
      std::fprintf(stderr, "usage: %s --openmetrics FILE [--print-url]\n", argv[0]);
      return 2;
    }
  }
  if (openmetrics.empty()) {
    std::fprintf(stderr, "%s: --openmetrics FILE is required\n", argv[0]);
    return 2;
  }
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
