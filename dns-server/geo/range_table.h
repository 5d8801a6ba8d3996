// One address family's key space cut into consecutive ranges that each carry a
// value, the compiled form of a geo database: building the range lists
// (append, combine two partitions) and RangeTable, which finds a key's range
// by a bucket index on the key's top bits (a bucket wholly inside one range
// holds its value and scope itself) plus a short binary search, and the
// widest aligned block around the key inside that range (the ECS scope an
// answer derived from the value may claim, RFC 7871 §7.2.1). Pure: no MMDB,
// no I/O. What the values mean belongs to the caller.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "geo/huge_page_buffer.h"

namespace ax::dns {

template <typename Key>
struct RangeStart {
  Key start = 0;
  uint32_t value = 0;
  bool operator==(const RangeStart&) const = default;
};

// Sorted by start, the first at 0, neighbours with different values: a
// partition of the whole key space.
template <typename Key>
using RangeList = std::vector<RangeStart<Key>>;

// Appends a range starting at `start` (above every start already in `list`)
// unless it only continues the last range's value.
template <typename Key>
void AppendRange(RangeList<Key>& list, Key start, uint32_t value) {
  if (!list.empty() && list.back().value == value) return;
  list.push_back({start, value});
}

// The partition where every key k gets combine(a(k), b(k)); both inputs must
// be partitions (see RangeList).
template <typename Key, typename Combine>
RangeList<Key> CombineRanges(const RangeList<Key>& a, const RangeList<Key>& b,
                             Combine combine) {
  RangeList<Key> out;
  out.reserve(std::max(a.size(), b.size()));
  size_t i = 0;
  size_t j = 0;
  Key at = 0;
  while (true) {
    AppendRange(out, at, combine(a[i].value, b[j].value));
    const bool a_more = i + 1 < a.size();
    const bool b_more = j + 1 < b.size();
    if (!a_more && !b_more) break;
    const Key next = !a_more   ? b[j + 1].start
                     : !b_more ? a[i + 1].start
                               : std::min(a[i + 1].start, b[j + 1].start);
    if (a_more && a[i + 1].start == next) ++i;
    if (b_more && b[j + 1].start == next) ++j;
    at = next;
  }
  return out;
}

template <typename Key>
class RangeTable {
  static_assert(std::is_unsigned_v<Key>);

 public:
  using KeyType = Key;
  static constexpr int kKeyBits = std::numeric_limits<Key>::digits;

  struct Hit {
    uint32_t value = 0;
    // The shortest prefix length whose block around the key lies wholly in
    // the key's range: every key in that block has the same value.
    int prefix_length = 0;
  };

  // `ranges` must be a partition (see RangeList); empty means one range of
  // value 0. The index has about one bucket per range, or 2^extra_index_bits
  // times as many (and up to that many times the usual cap).
  explicit RangeTable(const RangeList<Key>& ranges = {},
                      int extra_index_bits = 0) {
    const RangeList<Key> whole{{0, 0}};
    const RangeList<Key>& list = ranges.empty() ? whole : ranges;
    size_ = list.size();
    // About one range per bucket on average. Real clients sit in the densely
    // split parts of the address space, where buckets hold far more: a
    // smaller index (4 per bucket) measured slower in the peer benchmark.
    const int index_bits =
        std::clamp(static_cast<int>(std::bit_width(size_)) + extra_index_bits,
                   kMinIndexBits, kMaxIndexBits + extra_index_bits);
    shift_ = kKeyBits - index_bits;
    const size_t buckets = size_t{1} << index_bits;
    // One buffer, in the order a lookup reads it: buckets, then the entries,
    // start and value side by side so the search and the value share a cache
    // line.
    const size_t bucket_bytes =
        (buckets * sizeof(Bucket) + alignof(RangeStart<Key>) - 1) &
        ~(alignof(RangeStart<Key>) - 1);
    memory_ = HugePageBuffer(bucket_bytes + size_ * sizeof(RangeStart<Key>));
    buckets_ = static_cast<Bucket*>(memory_.data());
    entries_ = reinterpret_cast<RangeStart<Key>*>(
        static_cast<char*>(memory_.data()) + bucket_bytes);
    std::copy(list.begin(), list.end(), entries_);
    size_t range = 0;  // the range holding the bucket's first key
    for (size_t b = 0; b < buckets; ++b) {
      const Key first = static_cast<Key>(static_cast<Key>(b) << shift_);
      // shift_ < kKeyBits: the index has at least kMinIndexBits bits.
      const Key last =
          static_cast<Key>(first | ((static_cast<Key>(1) << shift_) - 1));
      while (range + 1 < size_ && entries_[range + 1].start <= first) ++range;
      size_t end = range;  // the range holding its last key
      while (end + 1 < size_ && entries_[end + 1].start <= last) ++end;
      if (end == range) {
        // Every key of the bucket is in one range, so every block around a
        // key that is wider than the bucket is the same block: the scope is
        // the bucket's, and the lookup ends here.
        buckets_[b] = {
            kWhole | static_cast<uint32_t>(ScopeWithin(
                         first, entries_[range].start, LastOf(range))),
            entries_[range].value};
      } else {
        buckets_[b] = {static_cast<uint32_t>(range),
                       static_cast<uint32_t>(end)};
      }
    }
  }

  Hit Find(Key key) const {
    const Bucket bucket = buckets_[static_cast<size_t>(key >> shift_)];
    if (bucket.first & kWhole) {
      return {bucket.second, static_cast<int>(bucket.first & ~kWhole)};
    }
    // The key's range is one of the bucket's.
    const RangeStart<Key>* at =
        std::upper_bound(
            entries_ + bucket.first + 1, entries_ + bucket.second + 1, key,
            [](Key k, const RangeStart<Key>& e) { return k < e.start; }) -
        1;
    const size_t i = static_cast<size_t>(at - entries_);
    return {at->value, ScopeWithin(key, at->start, LastOf(i))};
  }

  // What Find(key) reads first: the key's bucket; and next, after reading
  // that bucket, the middle of the ranges it searches (null: none, the
  // bucket holds the answer). For ax::Prefetch.
  const void* BucketAddress(Key key) const {
    return &buckets_[static_cast<size_t>(key >> shift_)];
  }
  const void* RangesAddress(Key key) const {
    const Bucket bucket = buckets_[static_cast<size_t>(key >> shift_)];
    if (bucket.first & kWhole) return nullptr;
    return entries_ + (bucket.first + bucket.second + 1) / 2;
  }

  // Calls fn(start, value) for every range in order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (size_t i = 0; i < size_; ++i) fn(entries_[i].start, entries_[i].value);
  }

  size_t size() const { return size_; }
  size_t MemoryBytes() const { return memory_.size(); }

  // The shortest prefix length p whose aligned block around `key` stays
  // within [first, last] (first <= key <= last).
  static int ScopeWithin(Key key, Key first, Key last) {
    // The block's low end stays >= first once p passes the bits key shares
    // with first, or earlier if first's remaining bits are all zero;
    // symmetrically for the high end and last's trailing ones.
    const int low = std::min(CommonBits(key, first) + 1,
                             kKeyBits - std::countr_zero(first));
    const int high =
        std::min(CommonBits(key, last) + 1,
                 kKeyBits - std::countr_zero(static_cast<Key>(~last)));
    return std::max(low, high);
  }

 private:
  static constexpr int kMinIndexBits = 8;
  static constexpr int kMaxIndexBits = 18;

  // A bucket of keys (those sharing their top bits): either wholly inside one
  // range, `first` then holding kWhole and the scope and `second` the value,
  // so that most lookups read one cache line; or the indexes of the ranges
  // holding its first and last keys.
  struct Bucket {
    uint32_t first;
    uint32_t second;
  };
  static constexpr uint32_t kWhole = uint32_t{1} << 31;

  static int CommonBits(Key a, Key b) {
    return std::countl_zero(static_cast<Key>(a ^ b));
  }
  // The last key of range i.
  Key LastOf(size_t i) const {
    return i + 1 < size_ ? static_cast<Key>(entries_[i + 1].start - 1)
                         : std::numeric_limits<Key>::max();
  }

  HugePageBuffer memory_;
  size_t size_ = 0;
  int shift_ = 0;                       // key >> shift_: its bucket
  Bucket* buckets_ = nullptr;           // 2^(kKeyBits - shift_) of them
  RangeStart<Key>* entries_ = nullptr;  // size_ of them
};

}  // namespace ax::dns
