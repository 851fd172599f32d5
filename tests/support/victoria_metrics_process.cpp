#include "tests/support/victoria_metrics_process.h"

#include <curl/curl.h>
#include <sys/wait.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "tests/support/prometheus_process.h"
#include "tests/support/eventually.h"

namespace netscore::testing {
namespace {

// POST body to url; the HTTP status, or 0 when nothing answered.
long http_post_text(const std::string& url, const std::string& body) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return 0;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION,
                   +[](char*, std::size_t size, std::size_t count, void*) { return size * count; });
  if (curl_easy_perform(curl.get()) != CURLE_OK) return 0;
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  return status;
}

}  // namespace

VictoriaMetricsProcess::VictoriaMetricsProcess(const SynthOptions& traffic)
    : dir_(make_temp_dir("netscore-victoria")) {
  try {
    bool started = false;
    for (int attempt = 0; attempt < 5 && !started; ++attempt) started = try_start(free_local_port());
    if (!started) throw std::runtime_error("victoria-metrics did not start: " + log_tail(dir_ + "/vm.log"));
    std::ostringstream text;
    write_prometheus_text(traffic, text);
    const long imported = http_post_text(url() + "/api/v1/import/prometheus", text.str());
    // Written data becomes searchable on the next flush; force it so the test need not wait.
    const long flushed = http_get_status(url() + "/internal/force_flush", std::chrono::seconds(30));
    if (imported != 204 || flushed != 200) {
      throw std::runtime_error("victoria-metrics import failed: import status " + std::to_string(imported) +
                               " flush status " + std::to_string(flushed) + ": " + log_tail(dir_ + "/vm.log"));
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
  pid_ = spawn_logged({"victoria-metrics", "-storageDataPath=" + dir_ + "/data", "-retentionPeriod=100y",
                       "-httpListenAddr=127.0.0.1:" + std::to_string(port), "-search.latencyOffset=0s",
                       "-search.disableCache", "-loggerLevel=WARN"},
                      dir_ + "/vm.log");
  port_ = port;
  bool exited = false;
  const bool ready = eventually(
      [&] {
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) exited = true;
        return exited || http_get_status(url() + "/health", std::chrono::milliseconds(500)) == 200;
      },
      std::chrono::seconds(60));
  if (exited) pid_ = -1;
  if (ready && !exited) return true;
  stop();
  return false;
}

void VictoriaMetricsProcess::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (!eventually([&] { return waitpid(pid_, nullptr, WNOHANG) == pid_; }, std::chrono::seconds(10))) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

}  // namespace netscore::testing
