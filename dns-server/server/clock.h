// Wall-clock milliseconds since the epoch: the time base of snapshots
// (generatedAtMs, failover windows) and of QueryMeta::now_ms. Timeouts use
// std::chrono::steady_clock directly.
#pragma once

#include <chrono>
#include <cstdint>

namespace ax::dns {

inline int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ax::dns
