// WakeTimer: one thread that calls back once when a set time comes, so that
// standalone plans again when its plan asks (requeue_after_ms: a canary step
// or a Rule expiry is due) rather than at the next periodic tick. Setting it
// again replaces the time. The callback runs on the timer's thread and should
// only hand over (DirWatcher::Poke).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace ax::dns {

class WakeTimer {
 public:
  explicit WakeTimer(std::function<void()> wake);
  ~WakeTimer();  // stops and joins; no callback after
  WakeTimer(const WakeTimer&) = delete;
  WakeTimer& operator=(const WakeTimer&) = delete;

  // Calls back `delay` from now; nullopt: not at all. Thread-safe.
  void Set(std::optional<std::chrono::milliseconds> delay);

 private:
  using Clock = std::chrono::steady_clock;
  void Run();

  const std::function<void()> wake_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::optional<Clock::time_point> at_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ax::dns
