#include "tests/support/prometheus_process.h"
#include "tests/support/eventually.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace netscore::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

}  // namespace

pid_t spawn_logged(const std::vector<std::string>& args, const std::string& log_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  return pid;
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

long http_get_status(const std::string& url, std::chrono::milliseconds timeout, const ClientAuth& auth) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return 0;
  if (!auth.ca_file.empty()) curl_easy_setopt(curl.get(), CURLOPT_CAINFO, auth.ca_file.c_str());
  if (!auth.cert_file.empty()) curl_easy_setopt(curl.get(), CURLOPT_SSLCERT, auth.cert_file.c_str());
  if (!auth.key_file.empty()) curl_easy_setopt(curl.get(), CURLOPT_SSLKEY, auth.key_file.c_str());
  if (!auth.user_password.empty()) curl_easy_setopt(curl.get(), CURLOPT_USERPWD, auth.user_password.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION,
                   +[](char*, std::size_t size, std::size_t count, void*) { return size * count; });
  if (curl_easy_perform(curl.get()) != CURLE_OK) return 0;
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  return status;
}

PrometheusProcess::PrometheusProcess(const std::string& openmetrics_file) : dir_(make_temp_dir("netscore-prometheus")) {
  backfill_and_start(openmetrics_file, nullptr);
}

PrometheusProcess::PrometheusProcess(const SynthOptions& traffic, ServeOptions serve)
    : dir_(make_temp_dir("netscore-prometheus")), serve_(std::move(serve)) {
  backfill_and_start(dir_ + "/traffic.om", &traffic);
}

void PrometheusProcess::backfill_and_start(const std::string& openmetrics_file, const SynthOptions* traffic) {
  try {
    if (traffic != nullptr) {
      std::ofstream out(openmetrics_file);
      write_openmetrics(*traffic, out);
    }
    std::ofstream(dir_ + "/prometheus.yml") << "global:\n  scrape_interval: 1h\n";
    if (!serve_.web_config.empty()) std::ofstream(dir_ + "/web.yml") << serve_.web_config;
    const pid_t promtool = spawn_logged({"promtool", "tsdb", "create-blocks-from", "openmetrics", openmetrics_file,
                                  dir_ + "/data"}, dir_ + "/promtool.log");
    int status = 0;
    waitpid(promtool, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
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
  std::vector<std::string> args{"prometheus", "--config.file=" + dir_ + "/prometheus.yml",
                                "--storage.tsdb.path=" + dir_ + "/data", "--storage.tsdb.retention.time=100y",
                                "--web.listen-address=127.0.0.1:" + std::to_string(port), "--log.level=warn"};
  if (!serve_.route_prefix.empty()) args.push_back("--web.route-prefix=" + serve_.route_prefix);
  if (!serve_.web_config.empty()) args.push_back("--web.config.file=" + dir_ + "/web.yml");
  pid_ = spawn_logged(args, dir_ + "/prometheus.log");
  port_ = port;
  const auto deadline = Clock::now() + ready_deadline;
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {  // exited: most likely the port was taken meanwhile
      pid_ = -1;
      return false;
    }
    if (http_get_status(url() + "/-/ready", std::chrono::milliseconds(500), serve_.probe) == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill();
  return false;
}

void PrometheusProcess::reap(std::chrono::milliseconds deadline) {
  if (!eventually([&] { return waitpid(pid_, nullptr, WNOHANG) == pid_; }, deadline)) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

void PrometheusProcess::stop() {
  if (!running()) return;
  ::kill(pid_, SIGTERM);
  reap(std::chrono::seconds(10));
}

void PrometheusProcess::kill() {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  reap(std::chrono::seconds(10));
}

}  // namespace netscore::testing
