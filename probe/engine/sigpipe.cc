// Thread-local SIGPIPE blocking (sigpipe.h).
#include "engine/sigpipe.h"

#include <pthread.h>

#include <ctime>

namespace ax::probe {

ScopedSigpipeBlock::ScopedSigpipeBlock() {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  was_blocked_ = sigismember(&old_, SIGPIPE) == 1;
}

ScopedSigpipeBlock::~ScopedSigpipeBlock() {
  if (was_blocked_) return;  // the caller blocks it anyway: leave all as is
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  // A write to a closed socket left SIGPIPE pending on this thread;
  // unblocking would deliver it. Consume it first.
  sigset_t pending;
  sigpending(&pending);
  if (sigismember(&pending, SIGPIPE) == 1) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace ax::probe
