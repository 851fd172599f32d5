// netscore-extender: kube-scheduler HTTP extender answering from the shared-memory score table.
#include <cstdlib>
#include <exception>

#include <spdlog/spdlog.h>

#include "common/config.h"
#include "common/logging.h"
#include "extender/http/routes.h"
#include "extender/http/server.h"

int main(int argc, char** argv) {
  const netscore::Config config =
      netscore::load_config_or_exit(netscore::Component::extender, argc, argv);
  netscore::init_logging("netscore-extender", config.log_level, config.log_format);
  try {
    netscore::extender::Server server(config);
    spdlog::info("listening address={}:{} threads={} shm={} scoring={} max_age={}",
                 config.extender.listen_host, server.port(), config.extender.threads,
                 config.shm.name, netscore::normalisation_name(config.extender.normalisation),
                 config.max_age.text);
    if (server.metrics_port() != 0) {
      spdlog::info("metrics listening address={}:{} endpoints={}", config.extender.metrics_host,
                   server.metrics_port(), netscore::extender::served_paths(true, ",", ","));
    }
    server.start();
    server.run_until_signal();
    spdlog::info("stopped");
    return EXIT_SUCCESS;
  } catch (const std::exception& e) {
    spdlog::critical("fatal error=\"{}\"", e.what());
    return EXIT_FAILURE;
  }
}
