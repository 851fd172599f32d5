#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// A program run as a child process (the binaries under test, Prometheus, VictoriaMetrics,
// promtool), by default with exactly the given environment (plus the sanitizer options of the
// test's own environment, so an asan build still reports), its stdout and stderr captured in a
// log file. The destructor SIGKILLs a child still running, reaps it and removes a log it named
// itself. Used by the tests, the drills, the benchmarks and the soak. Not thread-safe: one owner
// drives it.
namespace netscore::testing {

class BinaryProcess {
 public:
  struct Options {
    std::string path{};              // without a '/': looked up in PATH
    std::vector<std::string> env{};  // NAME=value
    // RLIMIT_FSIZE in the child, with SIGXFSZ ignored: growing a file past it fails with EFBIG
    // instead of killing the child, as a full filesystem fails with ENOSPC.
    std::optional<std::uint64_t> file_size_limit{};
    // Where the log goes (appended, kept afterwards); empty: a unique temporary file, removed.
    std::string log_path{};
    std::vector<std::string> args{};  // after the program name
    // Start from this process' environment (third-party servers need HOME, PATH, ...) instead of
    // only env.
    bool inherit_env = false;
  };

  // VmRSS (kB) and open descriptors read from /proc; -1 when unreadable.
  struct Sample {
    long rss_kb = -1;
    long fds = -1;
  };

  // Throws std::runtime_error when the child cannot be started.
  explicit BinaryProcess(Options options);
  BinaryProcess(const BinaryProcess&) = delete;
  BinaryProcess& operator=(const BinaryProcess&) = delete;
  ~BinaryProcess();

  // The exit status (128 + signal when killed by one), or -1 if it has not exited within the
  // deadline.
  int wait_exit(std::chrono::milliseconds deadline);
  void signal(int sig) const;
  // SIGTERM, then SIGKILL when it has not exited within the grace period; reaps it.
  void stop(std::chrono::milliseconds grace);
  // False once the child has exited (it is reaped here).
  bool alive();
  Sample sample() const;
  pid_t pid() const { return pid_; }
  std::string log() const;
  const std::string& log_path() const { return log_; }
  // Polls the log until it holds `text`; false when the deadline passes first.
  bool wait_for_log(std::string_view text, std::chrono::milliseconds deadline) const;

 private:
  std::string log_;
  bool own_log_;
  pid_t pid_ = -1;
};

}  // namespace netscore::testing
