#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tests/support/binary_process.h"
#include "tests/support/synth.h"

// A real single-node VictoriaMetrics (Debian `victoria-metrics`) for tests: started on 127.0.0.1
// at a free port with a temporary storage directory, the synthetic traffic imported through
// /api/v1/import/prometheus and flushed so queries see it at once.
// Not thread-safe: one owner starts and stops it.
namespace netscore::testing {

class VictoriaMetricsProcess {
 public:
  // Starts, imports and flushes; throws std::runtime_error with the log tail on failure.
  explicit VictoriaMetricsProcess(const SynthOptions& traffic);
  VictoriaMetricsProcess(const VictoriaMetricsProcess&) = delete;
  VictoriaMetricsProcess& operator=(const VictoriaMetricsProcess&) = delete;
  // SIGTERM, bounded wait, SIGKILL; removes the storage directory.
  ~VictoriaMetricsProcess();

  // The Prometheus-compatible query API's base URL.
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  bool try_start(std::uint16_t port);
  void stop();

  std::string dir_;
  std::optional<BinaryProcess> process_;
  std::uint16_t port_ = 0;
};

}  // namespace netscore::testing
