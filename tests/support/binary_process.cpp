#include "tests/support/binary_process.h"
#include "tests/support/eventually.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace netscore::testing {
namespace {

std::string unique_log_path(const std::string& binary) {
  static std::atomic<unsigned> counter{0};
  const std::string base = std::filesystem::path(binary).filename().string();
  return (std::filesystem::temp_directory_path() /
          (base + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".log"))
      .string();
}

bool is_sanitizer_option(std::string_view entry) {
  for (std::string_view prefix :
       {"ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=", "TSAN_OPTIONS="}) {
    if (entry.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace

BinaryProcess::BinaryProcess(Options options)
    : log_(options.log_path.empty() ? unique_log_path(options.path) : options.log_path),
      own_log_(options.log_path.empty()) {
  // The given variables first: the first of two same-named entries is the one a program sees.
  std::vector<std::string> env = options.env;
  for (char** e = environ; e && *e; ++e) {
    if (options.inherit_env || is_sanitizer_option(*e)) env.emplace_back(*e);
  }
  // Everything the child needs is built before fork: between fork and exec a multi-threaded
  // parent's child may only make async-signal-safe calls.
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv{options.path.data()};
  for (auto& a : options.args) argv.push_back(a.data());
  argv.push_back(nullptr);
  rlimit limit{};
  if (options.file_size_limit) limit.rlim_cur = limit.rlim_max = *options.file_size_limit;

  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid_ == 0) {
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) ::_exit(126);
    if (options.file_size_limit) {
      ::signal(SIGXFSZ, SIG_IGN);
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(126);
    }
    ::execvpe(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
}

BinaryProcess::~BinaryProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (own_log_) std::filesystem::remove(log_);
}

int BinaryProcess::wait_exit(std::chrono::milliseconds deadline) {
  int status = 0;
  if (pid_ <= 0 || !eventually([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, deadline))
    return -1;
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void BinaryProcess::signal(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

void BinaryProcess::stop(std::chrono::milliseconds grace) {
  signal(SIGTERM);
  if (wait_exit(grace) < 0 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

bool BinaryProcess::alive() {
  if (pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == pid_) pid_ = -1;
  return pid_ > 0;
}

BinaryProcess::Sample BinaryProcess::sample() const {
  Sample s;
  if (pid_ <= 0) return s;
  const std::filesystem::path proc = "/proc/" + std::to_string(pid_);
  std::ifstream status(proc / "status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmRSS:")) s.rss_kb = std::strtol(line.c_str() + 6, nullptr, 10);
  }
  std::error_code ec;
  long fds = 0;
  for (std::filesystem::directory_iterator it(proc / "fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++fds;
  if (!ec) s.fds = fds;
  return s;
}

std::string BinaryProcess::log() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool BinaryProcess::wait_for_log(std::string_view text, std::chrono::milliseconds deadline) const {
  return eventually([&] { return log().find(text) != std::string::npos; }, deadline);
}

}  // namespace netscore::testing
