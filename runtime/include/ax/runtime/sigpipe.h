// Keeps SIGPIPE from killing the process while a thread writes to sockets:
// OpenSSL writes with write(2), which raises SIGPIPE on a peer that has gone.
// Blocking the signal in the calling thread turns that into EPIPE without
// touching the process-wide disposition the embedding program chose. Used by
// the Kubernetes client and the probe engine.
#pragma once

#include <signal.h>

namespace ax::runtime {

// Blocks SIGPIPE in this thread for the guard's lifetime; on destruction
// consumes a SIGPIPE raised meanwhile and restores the previous mask (and
// leaves everything as it was when the caller had SIGPIPE blocked already).
class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
};

}  // namespace ax::runtime
