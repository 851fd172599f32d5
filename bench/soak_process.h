#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

// The soak's child processes (collector, extender): started with posix_spawn, output to a log
// file, stopped by PID only.
// Not thread-safe: one owner starts, samples and stops it.
namespace netscore::bench {

struct ProcessSample {
  long rss_kb = -1;  // VmRSS from /proc/<pid>/status; -1 when unreadable
  long fds = -1;     // entries of /proc/<pid>/fd; -1 when unreadable
};

class ChildProcess {
 public:
  // Starts argv[0] with the caller's environment plus `env` (NAME, value) pairs, stdout and
  // stderr appended to log_file; throws std::runtime_error when it cannot be started.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
               const std::string& log_file);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { stop(); }

  // SIGTERM, then SIGKILL if it has not exited within the grace period; reaps it.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds(5));
  // False once the process has exited (reaped here).
  bool alive();
  pid_t pid() const { return pid_; }
  ProcessSample sample() const;

 private:
  pid_t pid_ = -1;
};

}  // namespace netscore::bench
