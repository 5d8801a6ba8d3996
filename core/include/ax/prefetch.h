// Prefetch: a hint that starts loading the cache line the caller reads soon,
// so that a miss overlaps other work. What does not live here: anything that
// reads or writes the memory itself.
#pragma once

namespace ax {

// Starts loading the line holding `p` (null: nothing happens), for reading,
// or `for_write` for a line the caller is about to modify. The empty asm
// statement after the builtin is load-bearing: GCC 12 counts a read
// prefetch as free of side effects, deems a function whose only effect is
// one pure, and deletes calls to it (a region-map prefetch compiled to a
// bare `ret`).
inline void Prefetch(const void* p, bool for_write = false) {
  if (for_write) {
    __builtin_prefetch(p, 1);
  } else {
    __builtin_prefetch(p, 0);
  }
  asm volatile("" : : "r"(p));
}

}  // namespace ax
