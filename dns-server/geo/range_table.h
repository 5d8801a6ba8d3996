// One address family's key space cut into consecutive ranges that each carry a
// value, the compiled form of a geo database: building the range lists
// (append, combine two partitions) and RangeTable, which finds a key's range
// by a bucket index on the key's top bits plus a short binary search, and the
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
  static constexpr int kKeyBits = std::numeric_limits<Key>::digits;

  struct Hit {
    uint32_t value = 0;
    // The shortest prefix length whose block around the key lies wholly in
    // the key's range: every key in that block has the same value.
    int prefix_length = 0;
  };

  // `ranges` must be a partition (see RangeList); empty means one range of
  // value 0.
  explicit RangeTable(RangeList<Key> ranges = {}) {
    if (ranges.empty()) ranges.push_back({0, 0});
    starts_.reserve(ranges.size());
    values_.reserve(ranges.size());
    for (const RangeStart<Key>& r : ranges) {
      starts_.push_back(r.start);
      values_.push_back(r.value);
    }
    // buckets_[b]: the range holding bucket b's first key; the extra last
    // entry closes the final bucket.
    buckets_.resize(kBuckets + 1);
    size_t range = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      const Key first = static_cast<Key>(static_cast<Key>(b) << kShift);
      while (range + 1 < starts_.size() && starts_[range + 1] <= first) ++range;
      buckets_[b] = static_cast<uint32_t>(range);
    }
    buckets_[kBuckets] = static_cast<uint32_t>(starts_.size() - 1);
  }

  Hit Find(Key key) const {
    const size_t bucket = static_cast<size_t>(key >> kShift);
    // The key's range lies between the ranges holding this bucket's first key
    // and the next bucket's first key.
    const auto begin = starts_.begin() + buckets_[bucket];
    const auto end = starts_.begin() + buckets_[bucket + 1] + 1;
    const size_t i = static_cast<size_t>(std::upper_bound(begin + 1, end, key) -
                                         starts_.begin() - 1);
    const Key last = i + 1 < starts_.size()
                         ? static_cast<Key>(starts_[i + 1] - 1)
                         : std::numeric_limits<Key>::max();
    return {values_[i], ScopeWithin(key, starts_[i], last)};
  }

  size_t size() const { return starts_.size(); }
  size_t MemoryBytes() const {
    return starts_.capacity() * sizeof(Key) +
           values_.capacity() * sizeof(uint32_t) +
           buckets_.capacity() * sizeof(uint32_t);
  }

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
  static constexpr int kIndexBits = 18;
  static constexpr int kShift = kKeyBits - kIndexBits;
  static constexpr size_t kBuckets = size_t{1} << kIndexBits;

  static int CommonBits(Key a, Key b) {
    return std::countl_zero(static_cast<Key>(a ^ b));
  }

  std::vector<Key> starts_;
  std::vector<uint32_t> values_;
  std::vector<uint32_t> buckets_;
};

}  // namespace ax::dns
