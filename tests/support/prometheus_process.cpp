#include "tests/support/eventually.h"
#include "tests/support/prometheus_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace netscore::testing {
namespace {

namespace fs = std::filesystem;

}  // namespace

BinaryProcess::Options logged_program(std::vector<std::string> args, const std::string& log_file) {
  std::string program = std::move(args.front());
  args.erase(args.begin());
  return {.path = std::move(program),
          .log_path = log_file,
          .args = std::move(args),
          .inherit_env = true};
}

std::string log_tail(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

std::uint16_t free_local_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    throw std::runtime_error("cannot bind 127.0.0.1:0");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

PrometheusProcess::PrometheusProcess(const std::string& openmetrics_file, ServeOptions serve)
    : dir_(make_temp_dir("netscore-prometheus")), serve_(std::move(serve)) {
  backfill_and_start(openmetrics_file, nullptr);
}

PrometheusProcess::PrometheusProcess(const SynthOptions& traffic, ServeOptions serve)
    : dir_(make_temp_dir("netscore-prometheus")), serve_(std::move(serve)) {
  backfill_and_start(dir_ + "/traffic.om", &traffic);
}

void PrometheusProcess::backfill_and_start(const std::string& openmetrics_file,
                                           const SynthOptions* traffic) {
  try {
    if (traffic != nullptr) {
      std::ofstream out(openmetrics_file);
      write_openmetrics(*traffic, out);
    }
    std::ofstream config(dir_ + "/prometheus.yml");
    config << "global:\n  scrape_interval: 1h\n";
    if (serve_.query_log) config << "  query_log_file: " << query_log() << "\n";
    if (!serve_.rules.empty()) {
      std::ofstream(dir_ + "/rules.yml") << serve_.rules;
      config << "  evaluation_interval: 1s\nrule_files: [" << dir_
             << "/rules.yml]\nstorage:\n  tsdb:\n    out_of_order_time_window: 1d\n";
    }
    config.close();
    if (!serve_.web_config.empty()) std::ofstream(dir_ + "/web.yml") << serve_.web_config;
    BinaryProcess promtool(logged_program(
        {"promtool", "tsdb", "create-blocks-from", "openmetrics", openmetrics_file, dir_ + "/data"},
        dir_ + "/promtool.log"));
    if (promtool.wait_exit(std::chrono::minutes(5)) != 0) {
      throw std::runtime_error("promtool backfill failed: " + log_tail(dir_ + "/promtool.log"));
    }
    start();
  } catch (...) {
    fs::remove_all(dir_);
    throw;
  }
}

PrometheusProcess::~PrometheusProcess() {
  stop();
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

void PrometheusProcess::start() {
  if (running()) return;
  // The same port first, so a client configured with url() finds the restarted server.
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::uint16_t port = attempt == 0 && port_ != 0 ? port_ : free_local_port();
    if (try_start(port, std::chrono::seconds(60))) return;
  }
  throw std::runtime_error("prometheus did not start: " + log_tail(dir_ + "/prometheus.log"));
}

bool PrometheusProcess::try_start(std::uint16_t port, std::chrono::seconds ready_deadline) {
  std::vector<std::string> args{"prometheus",
                                "--config.file=" + dir_ + "/prometheus.yml",
                                "--storage.tsdb.path=" + dir_ + "/data",
                                "--storage.tsdb.retention.time=100y",
                                "--web.listen-address=127.0.0.1:" + std::to_string(port),
                                "--log.level=warn"};
  if (!serve_.route_prefix.empty()) args.push_back("--web.route-prefix=" + serve_.route_prefix);
  if (!serve_.web_config.empty()) args.push_back("--web.config.file=" + dir_ + "/web.yml");
  process_.emplace(logged_program(std::move(args), dir_ + "/prometheus.log"));
  port_ = port;
  bool exited = false;  // most likely the port was taken meanwhile
  const bool ready = eventually(
      [&] {
        exited = !process_->alive();
        return exited || http_request({.url = url() + "/-/ready",
                                       .timeout = std::chrono::milliseconds(500),
                                       .auth = serve_.probe})
                                 .status == 200;
      },
      ready_deadline);
  if (ready && !exited) return true;
  kill();
  return false;
}

void PrometheusProcess::stop() {
  if (!running()) return;
  process_->stop(std::chrono::seconds(10));
  process_.reset();
}

void PrometheusProcess::kill() {
  if (!running()) return;
  process_->signal(SIGKILL);
  process_->wait_exit(std::chrono::seconds(10));
  process_.reset();  // reaps it should it not have gone yet
}

}  // namespace netscore::testing
