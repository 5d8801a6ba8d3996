// Synchronous single probe (run_probe.h).
#include "engine/run_probe.h"

#include <errno.h>
#include <sys/epoll.h>

#include <algorithm>

#include "ax/runtime/clock.h"
#include "ax/runtime/net.h"
#include "ax/runtime/sigpipe.h"

namespace ax::probe {

ProbeOutcome RunProbe(const ProbeTarget& target,
                      const ConnectionOptions& options) {
  runtime::SigpipeGuard no_sigpipe;
  ProbeConnection conn(target, options);
  const int64_t start = runtime::MonoUs();
  const int64_t deadline =
      start + static_cast<int64_t>(target.check.timeout_ms) * 1000;
  conn.Start(start);
  if (conn.done()) return conn.outcome();

  runtime::Fd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) {
    conn.Abort(ProbeError::kConnect,
               "epoll_create1: " + runtime::ErrnoText(errno),
               runtime::MonoUs());
    return conn.outcome();
  }
  epoll_event ev{};
  ev.events = conn.events();
  ::epoll_ctl(epoll.get(), EPOLL_CTL_ADD, conn.fd(), &ev);
  uint32_t registered = conn.events();
  while (!conn.done()) {
    const int64_t now = runtime::MonoUs();
    if (now >= deadline) {
      conn.Abort(ProbeError::kTimeout,
                 std::string("no answer within the timeout (") +
                     conn.phase_name() + ")",
                 now);
      break;
    }
    const int wait_ms =
        static_cast<int>(std::max<int64_t>(1, (deadline - now + 999) / 1000));
    epoll_event out{};
    const int n = ::epoll_wait(epoll.get(), &out, 1, wait_ms);
    if (n < 0 && errno != EINTR) {
      conn.Abort(ProbeError::kConnect,
                 "epoll_wait: " + runtime::ErrnoText(errno), runtime::MonoUs());
      break;
    }
    if (n <= 0) continue;
    conn.OnReady(runtime::MonoUs());
    if (!conn.done() && conn.events() != registered) {
      ev.events = registered = conn.events();
      ::epoll_ctl(epoll.get(), EPOLL_CTL_MOD, conn.fd(), &ev);
    }
  }
  return conn.outcome();
}

}  // namespace ax::probe
