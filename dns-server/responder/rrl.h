// Response rate limiting in the style of BIND/NSD RRL, so that spoofed-source
// UDP floods do not turn the server into an amplifier: a token bucket per
// source prefix
// (/24, /56 of the packet source, never ECS), with "slip" sending every Nth
// limited response truncated so real clients retry over TCP. TCP is never
// limited (the responder does not ask). The clock is the caller's.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "ax/ip.h"

namespace ax::dns {

struct RrlOptions {
  bool enabled = true;
  uint32_t responses_per_second =
      1000;            // per source prefix; generous by default
  uint32_t burst = 0;  // responses allowed back to back; 0: one second's worth
  // Every `slip`-th limited response goes out truncated (TC=1), the others are
  // dropped; 0 drops them all, 1 truncates them all (BIND's rate-limit slip).
  uint32_t slip = 2;
  uint32_t table_size =
      65536;  // buckets; rounded up to a power of two, at least 2
  int ipv4_prefix = 24;
  int ipv6_prefix = 56;
};

enum class RrlVerdict : uint8_t { kAllow, kSlip, kDrop };

// One table shared by every worker: a fixed array of 64-bit atomic buckets,
// updated with compare-and-swap (no locks, no growth). Each bucket holds a
// 16-bit tag of its prefix and the prefix's theoretical arrival time (GCRA, the
// token bucket as one timestamp) in microseconds. Two buckets per hash slot; a
// prefix that finds neither takes the one idle longest. A collision can only
// reset a bucket (letting a burst through), never limit a prefix for another's
// traffic beyond a shared tag.
class RateLimiter {
 public:
  explicit RateLimiter(const RrlOptions& options);

  // Counts one UDP response to `source` at `now_ms` and says what to do with
  // it.
  RrlVerdict Check(const IpAddress& source, int64_t now_ms);

  const RrlOptions& options() const { return options_; }

 private:
  RrlOptions options_;
  uint64_t interval_us_;   // 1 s / rate
  uint64_t tolerance_us_;  // burst * interval
  uint64_t mask_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<int64_t> epoch_ms_;  // the clock reading times are relative to
  std::atomic<uint64_t> limited_{0};
};

}  // namespace ax::dns
