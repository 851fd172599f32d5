#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>

#include "tests/support/eventually.h"

// Runs a function in a forked child that reports one trivially copyable result through a pipe:
// the score table's guarantees are about processes, so the tests use real ones.
namespace netscore::testing {

template <class Report>
class ChildProcess {
  static_assert(std::is_trivially_copyable_v<Report>);

 public:
  explicit ChildProcess(const std::function<Report()>& body) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::close(fds[0]);
      int code = 0;
      try {
        const Report report = body();
        code = ::write(fds[1], &report, sizeof(report)) == static_cast<ssize_t>(sizeof(report)) ? 0
                                                                                                : 3;
      } catch (...) {
        code = 4;
      }
      ::_exit(code);
    }
    ::close(fds[1]);
    read_fd_ = fds[0];
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (read_fd_ >= 0) ::close(read_fd_);
  }

  pid_t pid() const { return pid_; }

  // Waits for the child; false if it died or exited without a report.
  bool join(Report& report) {
    const bool got =
        ::read(read_fd_, &report, sizeof(report)) == static_cast<ssize_t>(sizeof(report));
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

  // Waits until the child stops itself (raise(SIGSTOP)); false if it exited or died instead, or
  // is still running at the deadline. A stopped child stays stopped until killed.
  bool wait_until_stopped(std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
    bool stopped = false;
    eventually(
        [&] {
          if (pid_ <= 0) return true;
          int status = 0;
          const pid_t changed = ::waitpid(pid_, &status, WNOHANG | WUNTRACED);
          if (changed == 0) return false;
          if (changed == pid_ && WIFSTOPPED(status)) {
            stopped = true;
          } else {
            exit_status_ = status;
            pid_ = -1;  // reaped: never signal a pid the kernel may reuse
          }
          return true;
        },
        deadline);
    return stopped;
  }

  // The raw wait status of a child wait_until_stopped saw end instead of stopping.
  int exit_status() const { return exit_status_; }

  void kill_now() {
    if (pid_ <= 0) return;  // kill(-1) would signal every process we may signal
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int read_fd_ = -1;
  int exit_status_ = 0;
};

}  // namespace netscore::testing
