// A statistics counter with a single writer (a UDP worker, a TCP loop, one
// worker's query cells) read by others (stats(), /metrics): a relaxed load and
// store instead of fetch_add, which would cost a locked instruction per bump
// on the query path; still race-free for the reader (no torn values).
#pragma once

#include <atomic>
#include <cstdint>

namespace ax::dns {

struct Counter {
  std::atomic<uint64_t> value{0};
  void Add(uint64_t n = 1) {
    value.store(value.load(std::memory_order_relaxed) + n,
                std::memory_order_relaxed);
  }
  uint64_t Get() const { return value.load(std::memory_order_relaxed); }
};

}  // namespace ax::dns
