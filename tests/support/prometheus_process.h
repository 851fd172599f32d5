#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/binary_process.h"
#include "tests/support/http_client.h"
#include "tests/support/synth.h"

// A real Prometheus (Debian `prometheus` 2.42) for tests, the benchmark and demos: the given
// OpenMetrics file is backfilled with `promtool tsdb create-blocks-from openmetrics` into a
// temporary TSDB, and Prometheus serves it on 127.0.0.1 at a free port. Prometheus serves
// backfilled blocks whose range reaches into the future, so data written to end at now + 1h
// stays queryable at "now" for an hour.
// Not thread-safe: one owner starts and stops it.
namespace netscore::testing {

// How Prometheus serves: --web.route-prefix, and --web.config.file (TLS, basic auth) with the
// credentials the readiness probe needs.
struct ServeOptions {
  std::string route_prefix;  // "/prom"; empty: none
  std::string web_config;    // contents of the web config file; empty: plain http
  ClientAuth probe;          // used to ask /-/ready
  // A rule file Prometheus evaluates every second (empty: none). The backfilled blocks reach
  // into the future, so the rules' samples at the present need the out-of-order window.
  std::string rules{};
  bool query_log = false;  // every query's timings in query_log() (query_log_file)
};

class PrometheusProcess {
 public:
  // Backfills and starts; throws std::runtime_error with Prometheus' log tail on failure.
  explicit PrometheusProcess(const std::string& openmetrics_file, ServeOptions serve = {});
  // The same with synthetic traffic (synth.h), written into Prometheus' own temporary directory.
  explicit PrometheusProcess(const SynthOptions& traffic, ServeOptions serve = {});
  PrometheusProcess(const PrometheusProcess&) = delete;
  PrometheusProcess& operator=(const PrometheusProcess&) = delete;
  // Stops Prometheus and removes the temporary directory.
  ~PrometheusProcess();

  // Starts again on the same TSDB and, if still free, the same port.
  void start();
  // SIGTERM, bounded wait, then SIGKILL.
  void stop();
  // SIGKILL at once: a crashed Prometheus.
  void kill();

  bool running() const { return process_.has_value(); }
  std::uint16_t port() const { return port_; }
  // Base URL including the route prefix; https when a web config is given.
  std::string url() const {
    return (serve_.web_config.empty() ? "http://" : "https://") + std::string("127.0.0.1:") +
           std::to_string(port_) + serve_.route_prefix;
  }
  const std::string& directory() const { return dir_; }
  // Prometheus' query log: one JSON object per query (ServeOptions::query_log).
  std::string query_log() const { return dir_ + "/query.log"; }

 private:
  void backfill_and_start(const std::string& openmetrics_file, const SynthOptions* traffic);
  bool try_start(std::uint16_t port, std::chrono::seconds ready_deadline);

  std::string dir_;
  ServeOptions serve_;
  std::optional<BinaryProcess> process_;
  std::uint16_t port_ = 0;
};

// A program (looked up in PATH) to run in this process' environment, stdout and stderr appended
// to log_file.
BinaryProcess::Options logged_program(std::vector<std::string> args, const std::string& log_file);
// The last 2000 bytes of a log file.
std::string log_tail(const std::string& file);
// A new directory under the temporary directory, named prefix-XXXXXX.
std::string make_temp_dir(const std::string& prefix);

// A port nobody listens on right now (bind to 127.0.0.1:0); racy by nature, callers retry.
std::uint16_t free_local_port();

}  // namespace netscore::testing
