// The two clocks of the edges, read in one place so pure code never reads
// them: wall-clock milliseconds since the epoch (the time base of snapshots,
// ProbeResult::at_ms, failover windows and QueryMeta::now_ms) and monotonic
// microseconds (probe phases, deadlines and schedules: never jumps).
#pragma once

#include <chrono>
#include <cstdint>

namespace ax::runtime {

inline int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline int64_t MonoUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ax::runtime
