// Stable, portable hashing: the same bytes hash the same on every build and
// machine, so values may be stored (snapshot content hashes) or shared between
// processes (canary cohorts). Not for security: nothing here resists a
// deliberate collision.
#pragma once

#include <cstdint>
#include <string_view>

namespace ax {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;

// FNV-1a 64. `seed` chains calls: Fnv1a64(b, Fnv1a64(a)) == Fnv1a64(a + b).
uint64_t Fnv1a64(std::string_view data, uint64_t seed = kFnvOffset);

// The splitmix64 finaliser: a bijection that spreads every input bit over the
// output, for turning weak keys (indices, FNV of short strings) into well-mixed
// ones.
uint64_t Mix64(uint64_t x);

}  // namespace ax
