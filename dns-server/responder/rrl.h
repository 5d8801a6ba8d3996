// Response rate limiting in the style of BIND and Knot RRL, so that
// spoofed-source UDP floods do not turn the server into an amplifier, without
// limiting the large resolvers that send the real traffic: responses are
// counted per (client prefix, what the response is), not per prefix alone.
// Answers (and NODATA) count per (prefix, name, type, client subnet), so a
// resolver asking many names, or one name for many ECS subnets, spends many
// budgets while a reflection flood on one name spends one; NXDOMAIN counts per
// (prefix, zone), so a random-subdomain flood shares one budget; errors count
// per prefix. The prefix is the packet source's /24 or /56, never ECS. "Slip"
// sends every Nth limited response truncated so real clients retry over TCP,
// which is never limited (the responder does not ask). The clock is the
// caller's: monotonic microseconds, so a wall-clock step limits nobody.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "ax/ip.h"
#include "ax/prefetch.h"
#include "geo/huge_page_buffer.h"

namespace ax::dns {

enum class RrlClass : uint8_t { kAnswer, kNxDomain, kError };

struct RrlOptions {
  bool enabled = true;
  // Per (prefix, name, type, client subnet): a reflection flood on one name.
  uint32_t responses_per_second = 100;
  // Per (prefix, zone): a random-subdomain flood.
  uint32_t nxdomains_per_second = 1000;
  // Per prefix: FORMERR, SERVFAIL, REFUSED, NOTIMP, BADVERS.
  uint32_t errors_per_second = 100;
  uint32_t burst = 0;  // responses allowed back to back; 0: one second's worth
  // Every `slip`-th limited response goes out truncated (TC=1), the others are
  // dropped; 0 drops them all, 1 truncates them all (BIND's rate-limit slip).
  uint32_t slip = 2;
  uint32_t table_size = 1 << 18;  // buckets; a power of two, at least 2
  int ipv4_prefix = 24;
  int ipv6_prefix = 56;
};

enum class RrlVerdict : uint8_t { kAllow, kSlip, kDrop };

// One table shared by every worker: a fixed array of 64-bit atomic buckets,
// updated with compare-and-swap (no locks, no growth: the table is the bound on
// memory however many clients and names there are). Every response reads one
// bucket at random: at peak that load was 92 % of Check and ~13 % of the geo
// path's throughput, so the table lives on huge pages (no TLB miss, which in a
// VM walks two page tables) and the responder prefetches the bucket (Prefetch)
// before building the answer. Each bucket holds a 16-bit
// tag of its key and the key's theoretical arrival time (GCRA, the token bucket
// as one timestamp) in microseconds. Two buckets per hash slot; a key that
// finds neither takes the one idle longest. A collision can only reset a
// bucket (letting a burst through), never limit a key for another's traffic
// beyond a shared tag.
class RateLimiter {
 public:
  explicit RateLimiter(const RrlOptions& options);

  // The key of (source prefix, class, response): `response` names the
  // response within the class (a hash of name, type and subnet for answers,
  // the zone for NXDOMAIN, unused for errors). Computed once per response:
  // it serves Prefetch and Check alike.
  uint64_t Key(const IpAddress& source, RrlClass cls, uint64_t response) const;

  // Starts loading the bucket Check(key, ...) will read: that read misses
  // the caches (perf at peak: 92 % of Check on it; with the table on huge
  // pages still ~3.7 % of the core), and work done meanwhile hides it.
  void Prefetch(uint64_t key) const {
    if (options_.enabled) ax::Prefetch(Pair(key), /*for_write=*/true);
  }

  // Counts one UDP response of class `cls` under `key` (Key(source, cls,
  // ...)) at monotonic time `now_us`, and says what to do with it.
  RrlVerdict Check(uint64_t key, RrlClass cls, uint64_t now_us);
  RrlVerdict Check(const IpAddress& source, RrlClass cls, uint64_t response,
                   uint64_t now_us) {
    return Check(Key(source, cls, response), cls, now_us);
  }

  const RrlOptions& options() const { return options_; }

 private:
  struct Rate {
    uint64_t interval_us = 1;   // 1 s / rate
    uint64_t tolerance_us = 1;  // burst * interval
  };

  // A key's two buckets.
  uint64_t* Pair(uint64_t key) const {
    return &buckets_[key & mask_ & ~uint64_t{1}];
  }

  RrlOptions options_;
  Rate rates_[3];  // by RrlClass
  uint64_t mask_;
  HugePageBuffer table_;  // zeroed: every bucket starts empty
  uint64_t* buckets_;     // table_'s words, accessed through std::atomic_ref
  std::atomic<uint64_t> limited_{0};
};

// The class a response of `rcode` is limited as.
RrlClass RrlClassOf(uint16_t rcode);

}  // namespace ax::dns
