// BlockTerminationSignals: how the daemons take SIGINT and SIGTERM. Call it
// in main() before any other thread starts: every thread inherits the mask,
// so the signals stay pending until one thread takes them with sigwait() on
// the returned set. SIGPIPE is ignored, so a peer closing a connection
// mid-write fails the write instead of killing the process.
//
// Thread-safety: changes process-wide state; call it once, from main().
#pragma once

#include <pthread.h>
#include <signal.h>

#include <csignal>

namespace ksched::util {

inline sigset_t BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return signals;
}

}  // namespace ksched::util
