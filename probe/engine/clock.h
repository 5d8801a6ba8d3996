// The two clocks of the probe engine: monotonic microseconds for phases,
// deadlines and the schedule (never jumps), wall milliseconds for
// ProbeResult::at_ms (what reports and the health state machine compare).
#pragma once

#include <chrono>
#include <cstdint>

namespace ax::probe {

inline int64_t MonoUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ax::probe
