// WakeTimer (wake_timer.h): a condition-variable wait on the set time; the
// callback runs with the lock released, so Set may be called from it.
#include "server/wake_timer.h"

#include <utility>

namespace ax::dns {

WakeTimer::WakeTimer(std::function<void()> wake)
    : wake_(std::move(wake)), thread_([this] { Run(); }) {}

WakeTimer::~WakeTimer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void WakeTimer::Set(std::optional<std::chrono::milliseconds> delay) {
  {
    std::lock_guard lock(mu_);
    at_ = delay ? std::optional(Clock::now() + *delay) : std::nullopt;
  }
  changed_.notify_all();
}

void WakeTimer::Run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (!at_) {
      changed_.wait(lock);
      continue;
    }
    const Clock::time_point at = *at_;
    if (changed_.wait_until(lock, at, [&] { return stopping_ || at_ != at; })) {
      continue;  // stopping, or set again
    }
    at_.reset();
    lock.unlock();
    wake_();
    lock.lock();
  }
}

}  // namespace ax::dns
