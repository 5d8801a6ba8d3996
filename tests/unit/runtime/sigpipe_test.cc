// SIGPIPE stays harmless while probing: a write to a closed peer inside the
// scope fails with EPIPE instead of killing the process, the pending signal
// is discarded and the thread's signal mask is restored afterwards.
#include "ax/runtime/sigpipe.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ax::runtime {
namespace {

bool SigpipeBlocked() {
  sigset_t now;
  pthread_sigmask(SIG_SETMASK, nullptr, &now);
  return sigismember(&now, SIGPIPE) == 1;
}

TEST(SigpipeTest, WriteToAClosedPeerIsEpipeNotDeath) {
  ASSERT_FALSE(SigpipeBlocked());
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ::close(fds[1]);
  {
    SigpipeGuard block;
    EXPECT_TRUE(SigpipeBlocked());
    // write(2), as OpenSSL's socket BIO does: no MSG_NOSIGNAL.
    EXPECT_EQ(::write(fds[0], "x", 1), -1);
    EXPECT_EQ(errno, EPIPE);
    ::raise(SIGPIPE);  // and one sent directly
  }
  ::close(fds[0]);
  // Still alive, nothing pending, mask as before.
  EXPECT_FALSE(SigpipeBlocked());
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0);
}

TEST(SigpipeTest, LeavesACallerWhoBlocksItAlone) {
  sigset_t pipe, old;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  { SigpipeGuard block; }
  EXPECT_TRUE(SigpipeBlocked());
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace
}  // namespace ax::runtime
