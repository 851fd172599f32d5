#pragma once

#include <pthread.h>
#include <signal.h>

namespace netscore {

// Blocks SIGTERM and SIGINT in the calling thread and returns the set for sigwait. Called before
// any other thread starts, so every thread inherits the mask and only the sigwait caller ever
// takes a termination signal — no handler runs asynchronously in the middle of a refresh.
inline sigset_t block_termination_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

}  // namespace netscore
