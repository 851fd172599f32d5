#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "common/config.h"
#include "extender/http/handlers.h"

namespace netscore::extender {

class Worker;

// The HTTP/1.1 server: one io_context{1} per thread, each with its own acceptor on the one
// listening socket (a dup of thread 0's; no SO_REUSEPORT, so no other process can share the
// address), its own TableAttachment polled by a 1 s timer and its own Handlers, so no request
// takes a lock.
// start()/drain()/wait() may be called from any thread; drain() is also safe from a signal
// handler posted onto an io_context.
class Server {
 public:
  // Binds the listening socket; throws std::runtime_error naming the address and the reason on
  // failure (an address already in use included, whatever options its holder set).
  explicit Server(const Config& config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // The NETSCORE_METRICS_LISTEN port; 0 when that listener is off.
  std::uint16_t metrics_port() const noexcept { return metrics_port_; }
  void start();
  // SIGTERM path: /readyz turns 503, acceptors close, idle keep-alive connections close, in-flight
  // exchanges finish with Connection: close; wait() then returns.
  void drain();
  void wait();
  // Blocks until SIGTERM or SIGINT, then drains and returns.
  void run_until_signal();

  SharedState& shared() noexcept { return shared_; }

 private:
  Config config_;
  SharedState shared_;
  std::atomic<unsigned> connections_{0};
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  std::uint16_t port_ = 0;
  std::uint16_t metrics_port_ = 0;
};

}  // namespace netscore::extender
