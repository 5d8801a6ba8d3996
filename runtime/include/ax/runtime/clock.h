// The two clocks of the edges, read in one place so pure code never reads
// them: wall-clock milliseconds since the epoch (the time base of snapshots,
// ProbeResult::at_ms, failover windows and QueryMeta::now_ms) and monotonic
// microseconds (probe phases, deadlines and schedules: never jumps); and
// both at the kernel's tick for the query path.
#pragma once

#include <time.h>

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

// The same clocks at the kernel's tick (CLOCK_*_COARSE: a few ms), read from
// the vDSO without the timestamp counter: ~5 ns where a fine read takes ~19
// ns in this VM. For the DNS workers, which read both per batch of queries
// (at moderate rates a batch is one or two) and need no finer time: rate
// limits count in 10 ms steps or coarser, canary windows and slow start in
// seconds.
inline int64_t CoarseWallMs() {
  timespec ts;
  ::clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1'000'000;
}

inline int64_t CoarseMonoUs() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000;
}

}  // namespace ax::runtime
