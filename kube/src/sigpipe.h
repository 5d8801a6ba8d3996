// Keeps SIGPIPE from killing the process during a request: OpenSSL writes to
// the socket with write(2), which raises SIGPIPE when the apiserver has closed
// the connection. Blocking it in the calling thread turns that into EPIPE
// without touching the disposition the embedding program chose. (The probe
// engine guards its own sockets the same way; ax_kube must not link it.)
#pragma once

#include <signal.h>

namespace ax::kube {

// Blocks SIGPIPE in this thread for the guard's lifetime; on destruction
// consumes a SIGPIPE raised meanwhile and restores the previous mask.
class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
};

}  // namespace ax::kube
