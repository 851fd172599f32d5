#include "tests/support/victoria_metrics_process.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "tests/support/eventually.h"
#include "tests/support/http_client.h"
#include "tests/support/prometheus_process.h"

namespace netscore::testing {

VictoriaMetricsProcess::VictoriaMetricsProcess(const SynthOptions& traffic)
    : dir_(make_temp_dir("netscore-victoria")) {
  try {
    bool started = false;
    for (int attempt = 0; attempt < 5 && !started; ++attempt)
      started = try_start(free_local_port());
    if (!started)
      throw std::runtime_error("victoria-metrics did not start: " + log_tail(dir_ + "/vm.log"));
    std::ostringstream text;
    write_prometheus_text(traffic, text);
    const long imported = http_request({.method = "POST",
                                        .url = url() + "/api/v1/import/prometheus",
                                        .body = text.str(),
                                        .content_type = "text/plain",
                                        .timeout = std::chrono::seconds(30)})
                              .status;
    // Written data becomes searchable on the next flush; force it so the test need not wait.
    const long flushed = http_get(url() + "/internal/force_flush", std::chrono::seconds(30)).status;
    if (imported != 204 || flushed != 200) {
      throw std::runtime_error("victoria-metrics import failed: import status " +
                               std::to_string(imported) + " flush status " +
                               std::to_string(flushed) + ": " + log_tail(dir_ + "/vm.log"));
    }
  } catch (...) {
    stop();
    std::filesystem::remove_all(dir_);
    throw;
  }
}

VictoriaMetricsProcess::~VictoriaMetricsProcess() {
  stop();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool VictoriaMetricsProcess::try_start(std::uint16_t port) {
  // The synthetic data reaches an hour into the future, and queries ask about "now": no latency
  // offset (it would hide the newest samples) and no response cache.
  process_.emplace(
      logged_program({"victoria-metrics", "-storageDataPath=" + dir_ + "/data",
                      "-retentionPeriod=100y", "-httpListenAddr=127.0.0.1:" + std::to_string(port),
                      "-search.latencyOffset=0s", "-search.disableCache", "-loggerLevel=WARN"},
                     dir_ + "/vm.log"));
  port_ = port;
  bool exited = false;
  const bool ready = eventually(
      [&] {
        exited = !process_->alive();
        return exited || http_get(url() + "/health", std::chrono::milliseconds(500)).status == 200;
      },
      std::chrono::seconds(60));
  if (ready && !exited) return true;
  stop();
  return false;
}

void VictoriaMetricsProcess::stop() {
  if (!process_) return;
  process_->stop(std::chrono::seconds(10));
  process_.reset();
}

}  // namespace netscore::testing
