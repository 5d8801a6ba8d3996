// RateLimiter: GCRA buckets in a fixed lock-free table, one rate per class.
#include "responder/rrl.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "ax/hash.h"
#include "wire/protocol.h"

namespace ax::dns {
namespace {

constexpr int kTagShift = 48;
constexpr uint64_t kTimeMask =
    (uint64_t{1} << kTagShift) - 1;  // ~8.9 years of µs since boot
constexpr int kCasAttempts = 4;

// Hot marks expire in units of 2^20 µs (~1 s), as one byte that wraps: a
// mark made at stamp s holds s + 2, and is hot while that is one or two
// stamps ahead. A stale byte from 256 stamps before can look hot again: that
// only costs its keys an exact check for a second or two.
constexpr int kHotStampShift = 20;
constexpr uint8_t kHotStamps = 2;

uint8_t HotStamp(uint64_t now_us) {
  return static_cast<uint8_t>(now_us >> kHotStampShift);
}

bool IsHot(uint8_t mark, uint64_t now_us) {
  return mark != 0 &&
         static_cast<uint8_t>(mark - HotStamp(now_us) - 1) < kHotStamps;
}

uint64_t PrefixKey(const IpAddress& source, const RrlOptions& o) {
  return PrefixWord(
      source, source.family == IpFamily::kV4 ? o.ipv4_prefix : o.ipv6_prefix);
}

}  // namespace

RrlClass RrlClassOf(uint16_t rcode) {
  switch (rcode) {
    case kRcodeNoError:
      return RrlClass::kAnswer;
    case kRcodeNxDomain:
      return RrlClass::kNxDomain;
    default:
      return RrlClass::kError;
  }
}

RateLimiter::RateLimiter(const RrlOptions& options)
    : options_(options),
      mask_(std::bit_ceil(std::max<uint64_t>(2, options.table_size)) - 1),
      table_((mask_ + 1) * sizeof(uint64_t)),
      buckets_(static_cast<uint64_t*>(table_.data())) {
  const uint32_t per_second[] = {options.responses_per_second,
                                 options.nxdomains_per_second,
                                 options.errors_per_second};
  for (int c = 0; c < 3; ++c) {
    const uint32_t rate = std::max<uint32_t>(1, per_second[c]);
    Rate& r = rates_[c];
    r.interval_us = std::max<uint64_t>(1, 1'000'000 / rate);
    r.tolerance_us = std::max(
        r.interval_us, (options.burst ? options.burst : rate) * r.interval_us);
  }
  // A sample charges `sample` answers at once: kept to an eighth of the
  // burst, so that the one that makes a key hot (at a quarter) leaves it at
  // most three eighths full.
  const Rate& answers = rates_[static_cast<int>(RrlClass::kAnswer)];
  const uint64_t most =
      std::max<uint64_t>(1, answers.tolerance_us / answers.interval_us / 8);
  answer_sample_ = static_cast<uint32_t>(std::bit_floor(
      std::clamp<uint64_t>(options.sample, 1, std::min<uint64_t>(most, 1024))));
}

uint32_t RateLimiter::AnswerWeight(uint64_t key, uint64_t now_us,
                                   uint64_t random) const {
  if (answer_sample_ == 1) return 1;
  const uint8_t mark =
      std::atomic_ref(hot_[HotIndex(key)]).load(std::memory_order_relaxed);
  if (IsHot(mark, now_us)) return 1;
  return (random & (answer_sample_ - 1)) == 0 ? answer_sample_ : 0;
}

void RateLimiter::MarkHot(uint64_t key, uint64_t now_us) {
  uint8_t mark = static_cast<uint8_t>(HotStamp(now_us) + kHotStamps);
  if (mark == 0) --mark;  // 0 is "never": 255, one stamp shorter
  const std::atomic_ref<uint8_t> slot(hot_[HotIndex(key)]);
  // Every check of a hot key renews its mark: write only when it changes, so
  // that the line is not bounced between workers at every answer of a flood.
  if (slot.load(std::memory_order_relaxed) != mark) {
    slot.store(mark, std::memory_order_relaxed);
  }
}

uint64_t RateLimiter::Key(const IpAddress& source, RrlClass cls,
                          uint64_t response) const {
  // Errors of a prefix share one budget whatever the question.
  const uint64_t what = cls == RrlClass::kError ? 0 : response;
  // One Mix64 of the whole: the terms only need to differ (PrefixWord); the
  // prefix is spread by MulFold so that it does not cancel against `what`'s
  // subnet term, which is spread with another constant.
  return Mix64(what ^ (uint64_t{1} + static_cast<uint64_t>(cls)) << 56 ^
               MulFold(PrefixKey(source, options_), 0xbf58476d1ce4e5b9ULL));
}

RrlVerdict RateLimiter::Check(uint64_t key, RrlClass cls, uint64_t now,
                              uint32_t weight) {
  if (!options_.enabled || weight == 0) return RrlVerdict::kAllow;
  const Rate& rate = rates_[static_cast<int>(cls)];
  const uint64_t now_us = std::min(now, kTimeMask);
  const uint64_t tag = key >> kTagShift;
  // Only sampled answers have marks to keep (AnswerWeight reads them).
  const bool marks = cls == RrlClass::kAnswer && answer_sample_ > 1;
  uint64_t* words = Pair(key);
  const std::atomic_ref<uint64_t> pair[2] = {std::atomic_ref(words[0]),
                                             std::atomic_ref(words[1])};
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
    const uint64_t start = std::max(tat, now_us);
    // This answer itself is judged as one; a sample charges its weight, but
    // never past the burst (the answers it stands for were not limited).
    if (start + rate.interval_us - now_us > rate.tolerance_us) {
      if (marks) MarkHot(key, now_us);
      const uint64_t n = limited_.fetch_add(1, std::memory_order_relaxed) + 1;
      return options_.slip != 0 && n % options_.slip == 0 ? RrlVerdict::kSlip
                                                          : RrlVerdict::kDrop;
    }
    const uint64_t next =
        std::min(start + weight * rate.interval_us, now_us + rate.tolerance_us);
    const uint64_t value = tag << kTagShift | std::min(next, kTimeMask);
    if (pair[slot].compare_exchange_weak(seen[slot], value,
                                         std::memory_order_relaxed)) {
      if (marks && next - now_us > rate.tolerance_us / 4) MarkHot(key, now_us);
      return RrlVerdict::kAllow;
    }
  }
  return RrlVerdict::kAllow;  // heavy contention on one bucket: fail open
}

}  // namespace ax::dns
