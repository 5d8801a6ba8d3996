// A statistics counter bumped by one thread and read by others (stats(),
// later /metrics): relaxed atomics, since no other memory hangs off them.
#pragma once

#include <atomic>
#include <cstdint>

namespace ax::dns {

struct Counter {
  std::atomic<uint64_t> value{0};
  void Add(uint64_t n = 1) { value.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Get() const { return value.load(std::memory_order_relaxed); }
};

}  // namespace ax::dns
