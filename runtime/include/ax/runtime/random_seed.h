// A 64-bit seed from the OS entropy source, for the per-worker RNGs of the
// query path when no fixed seed is configured (tests pass their own seeds).
#pragma once

#include <cstdint>
#include <random>

namespace ax::runtime {

inline uint64_t RandomSeed() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

}  // namespace ax::runtime
