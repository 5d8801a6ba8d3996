// Test helper: wait for a condition with a deadline instead of sleeping a
// guessed time. WaitFor asks `done` every couple of milliseconds until it
// holds or the deadline passes and says whether it held, for the test to
// assert on. A sleep stays only where a test lets time pass on purpose (a
// window in which nothing may happen, a backend's own latency).
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace ax::testing {

// true once `done` holds; false when it still does not at `deadline` (it is
// asked once more then).
[[nodiscard]] inline bool WaitFor(
    const std::function<bool()>& done,
    std::chrono::milliseconds deadline = std::chrono::seconds(5)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return done();
}

}  // namespace ax::testing
