// RateLimiter: GCRA buckets in a fixed lock-free table.
#include "responder/rrl.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "ax/hash.h"

namespace ax::dns {
namespace {

constexpr int kTagShift = 48;
constexpr uint64_t kTimeMask =
    (uint64_t{1} << kTagShift) - 1;  // ~8.9 years of µs
constexpr int64_t kNoEpoch = std::numeric_limits<int64_t>::min();
constexpr int kCasAttempts = 4;

uint64_t PrefixKey(const IpAddress& source, const RrlOptions& o) {
  const int bits =
      source.family == IpFamily::kV4 ? o.ipv4_prefix : o.ipv6_prefix;
  const IpAddress prefix = Mask(source, bits);
  uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) {
    hi = hi << 8 | prefix.bytes[i];
    lo = lo << 8 | prefix.bytes[i + 8];
  }
  return Mix64(Mix64(hi ^ static_cast<uint64_t>(source.family)) ^ lo);
}

}  // namespace

RateLimiter::RateLimiter(const RrlOptions& options)
    : options_(options),
      interval_us_(std::max<uint64_t>(
          1, 1'000'000 / std::max<uint32_t>(1, options.responses_per_second))),
      tolerance_us_(
          (options.burst ? options.burst : options.responses_per_second) *
          interval_us_),
      mask_(std::bit_ceil(std::max<uint64_t>(2, options.table_size)) - 1),
      buckets_(new std::atomic<uint64_t>[mask_ + 1]),
      epoch_ms_(kNoEpoch) {
  tolerance_us_ = std::max(tolerance_us_, interval_us_);
  for (uint64_t i = 0; i <= mask_; ++i)
    buckets_[i].store(0, std::memory_order_relaxed);
}

RrlVerdict RateLimiter::Check(const IpAddress& source, int64_t now_ms) {
  if (!options_.enabled) return RrlVerdict::kAllow;
  int64_t epoch = epoch_ms_.load(std::memory_order_relaxed);
  if (epoch == kNoEpoch) {
    // The first reading becomes time zero; whoever wins the race sets it.
    epoch_ms_.compare_exchange_strong(epoch, now_ms - 1,
                                      std::memory_order_relaxed);
    epoch = epoch_ms_.load(std::memory_order_relaxed);
  }
  const uint64_t now_us =
      now_ms > epoch ? std::min<uint64_t>((now_ms - epoch) * 1000ULL, kTimeMask)
                     : 0;
  const uint64_t key = PrefixKey(source, options_);
  const uint64_t tag = key >> kTagShift;
  std::atomic<uint64_t>* pair = &buckets_[key & mask_ & ~uint64_t{1}];
  for (int attempt = 0; attempt < kCasAttempts; ++attempt) {
    uint64_t seen[2] = {pair[0].load(std::memory_order_relaxed),
                        pair[1].load(std::memory_order_relaxed)};
    int slot = -1;
    for (int i = 0; i < 2; ++i) {
      if (seen[i] != 0 && seen[i] >> kTagShift == tag) slot = i;
    }
    uint64_t tat = 0;  // a new or evicted bucket starts full
    if (slot >= 0) {
      tat = seen[slot] & kTimeMask;
    } else {
      slot = (seen[0] & kTimeMask) <= (seen[1] & kTimeMask)
                 ? 0
                 : 1;  // idle longest
    }
    const uint64_t next = std::max(tat, now_us) + interval_us_;
    if (next - now_us > tolerance_us_) {
      const uint64_t n = limited_.fetch_add(1, std::memory_order_relaxed) + 1;
      return options_.slip != 0 && n % options_.slip == 0 ? RrlVerdict::kSlip
                                                          : RrlVerdict::kDrop;
    }
    const uint64_t value = tag << kTagShift | std::min(next, kTimeMask);
    if (pair[slot].compare_exchange_weak(seen[slot], value,
                                         std::memory_order_relaxed)) {
      return RrlVerdict::kAllow;
    }
  }
  return RrlVerdict::kAllow;  // heavy contention on one bucket: fail open
}

}  // namespace ax::dns
