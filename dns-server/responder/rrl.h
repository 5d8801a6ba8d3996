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
// caller's: monotonic microseconds, so a wall-clock step limits nobody; so is
// the randomness that samples answers (AnswerWeight).
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
  // An answer whose key is not near its limit reads its bucket one time in
  // `sample` (at random), counted as `sample` answers; 1: every answer reads
  // it. Rounded down to a power of two, and to at most an eighth of the
  // answers' burst, so that a sample never overshoots the limit by much.
  uint32_t sample = 8;
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
//
// Answers spread over hundreds of thousands of keys (resolver prefixes times
// names times client subnets), so their buckets are a table of megabytes read
// all over, and that read cost ~1.6 % of the geo path's throughput. Almost
// none of those keys is anywhere near its limit, so an answer only reads its
// bucket when its key is hot (its bucket was last seen more than a quarter
// full), or one time in `sample` at random, charging `sample` answers. Hot
// keys are marked in a 4 KiB table of one-byte expiry stamps that stays in
// L1: a mark lasts one to two seconds and every exact check of a bucket still
// over a quarter renews it. A flood on one key is thus counted from its first
// answers: it turns hot after about a quarter of its burst (give or take a
// few samples) and from then on is counted exactly, so it gets its burst and
// then the rate, as without sampling. Many flood keys at once share marks in
// the small table: that only makes more keys exact, never fewer.
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

  // How many answers this answer of `key` counts as in its bucket: 1 when the
  // key is hot or sampling is off, else `sample` when `random` (uniform over
  // 64 bits, the caller's) picks it and 0 when it does not: then Check reads
  // nothing and allows it.
  uint32_t AnswerWeight(uint64_t key, uint64_t now_us, uint64_t random) const;

  // Counts one UDP response of class `cls` under `key` (Key(source, cls,
  // ...)) at monotonic time `now_us` as `weight` responses (AnswerWeight's;
  // 1 for the other classes), and says what to do with it.
  RrlVerdict Check(uint64_t key, RrlClass cls, uint64_t now_us,
                   uint32_t weight = 1);
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
  // A key's hot mark: bits the bucket index and the tag do not use.
  static constexpr size_t kHotMarks = 4096;
  static size_t HotIndex(uint64_t key) { return (key >> 24) & (kHotMarks - 1); }
  void MarkHot(uint64_t key, uint64_t now_us);

  RrlOptions options_;
  Rate rates_[3];           // by RrlClass
  uint32_t answer_sample_;  // options_.sample as applied (1: off)
  // Expiry stamps (HotStamp in rrl.cc) of the hot marks, 0: never marked.
  // Read and written through std::atomic_ref, which a const reader cannot
  // make of a const byte: hence mutable.
  alignas(64) mutable uint8_t hot_[kHotMarks] = {};
  uint64_t mask_;
  HugePageBuffer table_;  // zeroed: every bucket starts empty
  uint64_t* buckets_;     // table_'s words, accessed through std::atomic_ref
  std::atomic<uint64_t> limited_{0};
};

// The class a response of `rcode` is limited as.
RrlClass RrlClassOf(uint16_t rcode);

}  // namespace ax::dns
