// Thread-local SIGPIPE blocking (sigpipe.h).
#include "ax/runtime/sigpipe.h"

#include <pthread.h>

#include <ctime>

namespace ax::runtime {
namespace {

sigset_t PipeSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  return set;
}

}  // namespace

SigpipeGuard::SigpipeGuard() {
  const sigset_t pipe = PipeSet();
  pthread_sigmask(SIG_BLOCK, &pipe, &old_);
}

SigpipeGuard::~SigpipeGuard() {
  if (sigismember(&old_, SIGPIPE) == 1) return;  // the caller blocks it anyway
  const sigset_t pipe = PipeSet();
  sigset_t pending;
  sigpending(&pending);
  if (sigismember(&pending, SIGPIPE) == 1) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace ax::runtime
