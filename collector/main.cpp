// netscore-collector: one batched Prometheus query per refresh (a request per direction) → the
// shared-memory score table.
#include <curl/curl.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "collector/pipeline/check.h"
#include "collector/pipeline/print_rules.h"
#include "collector/pipeline/service.h"
#include "common/clock.h"
#include "common/config.h"
#include "common/logging.h"
#include "common/signals.h"

namespace {

namespace nc = netscore::collector;

// --check and --print-rules are modes, not settings: taken out before the configuration sees the
// flags.
struct Modes {
  bool check = false;
  bool print_rules = false;
  std::vector<char*> args;  // argv without them
};

Modes take_modes(int argc, char** argv) {
  Modes modes;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i > 0 && arg == "--check") {
      modes.check = true;
    } else if (i > 0 && arg == "--print-rules") {
      modes.print_rules = true;
    } else {
      modes.args.push_back(argv[i]);
    }
  }
  return modes;
}

int run_one_shot(const netscore::Config& config, const Modes& modes) {
  try {
    return modes.check ? nc::run_check(config, netscore::wall_now_ms(), std::cout)
                       : nc::run_print_rules(config, netscore::wall_now_ms(), std::cout);
  } catch (const std::exception& e) {
    std::cout << "FAIL: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}

int run_service(const netscore::Config& config, const sigset_t& signals) {
  try {
    nc::run_service(config, signals, std::string("netscore-collector/") + NETSCORE_VERSION);
  } catch (const std::exception& e) {
    spdlog::error("fatal error=\"{}\"", e.what());
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  Modes modes = take_modes(argc, argv);
  if (modes.check && modes.print_rules) {
    std::fprintf(stderr, "--check and --print-rules are two modes: give one\n");
    return 2;
  }
  const netscore::Config config = netscore::load_config_or_exit(
      netscore::Component::collector, static_cast<int>(modes.args.size()), modes.args.data());
  netscore::init_logging("netscore-collector", config.log_level, config.log_format);
  if (const auto error = nc::query_settings_error(config)) {
    std::fprintf(stderr, "%s\n", error->c_str());
    return 2;
  }
  const sigset_t signals = netscore::block_termination_signals();
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    spdlog::critical("fatal error=\"curl_global_init failed\"");
    return EXIT_FAILURE;
  }
  const int status =
      modes.check || modes.print_rules ? run_one_shot(config, modes) : run_service(config, signals);
  curl_global_cleanup();
  return status;
}
