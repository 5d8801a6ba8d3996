// VersionWatch (version_watch.h): one condition variable, woken on every
// swap; each waiter re-reads the served version, so a swap between its check
// and its wait is never missed (Notify takes the lock).
#include "server/version_watch.h"

#include <utility>

namespace ax::dns {

VersionWatch::VersionWatch(std::function<uint64_t()> served, size_t max_waiters)
    : served_(std::move(served)), max_waiters_(max_waiters) {}

void VersionWatch::Notify() {
  { std::lock_guard lock(mu_); }
  changed_.notify_all();
}

void VersionWatch::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  changed_.notify_all();
}

WatchResult VersionWatch::WaitWhileServing(uint64_t version,
                                           std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (closed_) return WatchResult::kClosed;
  if (served_() != version) return WatchResult::kChanged;
  if (waiters_ >= max_waiters_) {
    ++refused_;
    return WatchResult::kBusy;
  }
  ++waiters_;
  const bool woke = changed_.wait_for(
      lock, timeout, [&] { return closed_ || served_() != version; });
  --waiters_;
  if (closed_) return WatchResult::kClosed;
  return woke ? WatchResult::kChanged : WatchResult::kTimedOut;
}

size_t VersionWatch::waiters() const {
  std::lock_guard lock(mu_);
  return waiters_;
}

uint64_t VersionWatch::refused() const {
  std::lock_guard lock(mu_);
  return refused_;
}

}  // namespace ax::dns
