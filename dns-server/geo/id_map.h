// IdMap: a 64-bit key -> 32-bit id map for the geo compiler's hot loops (a
// database record's offset -> its decoded value; a pair of values -> their
// merge), open addressing with linear probing in one array. Millions of
// lookups per load, mostly misses in cache: std::unordered_map's node chains
// cost a dependent load per step, here a probe stays in one cache line.
// Build-time only: nothing on the query path uses it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ax::dns {

class IdMap {
 public:
  // Callers never use this key (the geo compiler's keys are file offsets and
  // pairs of ids below UINT32_MAX - 1).
  static constexpr uint64_t kEmptyKey = UINT64_MAX;

  // The id slot for `key` and whether it was just added (its id then 0, for
  // the caller to set). The reference holds until the next FindOrAdd.
  struct Slot {
    uint32_t& id;
    bool added;
  };

  Slot FindOrAdd(uint64_t key) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    size_t i = Home(key);
    while (slots_[i].key != key) {
      if (slots_[i].key == kEmptyKey) {
        slots_[i] = {key, 0};
        ++size_;
        return {slots_[i].id, true};
      }
      i = (i + 1) & (slots_.size() - 1);
    }
    return {slots_[i].id, false};
  }

  size_t size() const { return size_; }

 private:
  struct Entry {
    uint64_t key = kEmptyKey;
    uint32_t id = 0;
  };

  size_t Home(uint64_t key) const {
    // Fibonacci hashing: offsets and id pairs have regular low bits.
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  void Grow() {
    std::vector<Entry> old = std::move(slots_);
    const size_t capacity = old.empty() ? 1024 : old.size() * 2;
    slots_.assign(capacity, Entry{});
    shift_ = 64 - std::countr_zero(capacity);
    for (const Entry& e : old) {
      if (e.key == kEmptyKey) continue;
      size_t i = Home(e.key);
      while (slots_[i].key != kEmptyKey) i = (i + 1) & (capacity - 1);
      slots_[i] = e;
    }
  }

  std::vector<Entry> slots_;
  size_t size_ = 0;
  int shift_ = 64;
};

}  // namespace ax::dns
