// Stable, portable hashing: the same bytes hash the same on every build and
// machine, so values may be stored (snapshot content hashes) or shared between
// processes (canary cohorts). Not for security: nothing here resists a
// deliberate collision. The constants are the published ones, so hashes
// stored in snapshots stay comparable across releases.
#pragma once

#include <cstdint>
#include <string_view>

namespace ax {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;

// FNV-1a 64. `seed` chains calls: Fnv1a64(b, Fnv1a64(a)) == Fnv1a64(a + b).
// Both functions live here, inline: Mix64 is on the DNS query path (cohorts,
// rate-limit prefixes); FNV's byte-serial loop is not (snapshot hashes, names
// hashed at index time), the query path hashes names with std::hash.
inline uint64_t Fnv1a64(std::string_view data, uint64_t seed = kFnvOffset) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t h = seed;
  for (const char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= kPrime;
  }
  return h;
}

// The splitmix64 finaliser: a bijection that spreads every input bit over the
// output, for turning weak keys (indices, FNV of short strings) into well-mixed
// ones.
inline uint64_t Mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The 128-bit type is a GCC/Clang extension; __extension__ keeps -Wpedantic
// quiet about it in every file that includes this header.
__extension__ using Uint128 = unsigned __int128;

// The 128-bit product of x and an odd constant k, its halves folded: one
// multiplication that spreads x's bits up and down (a plain 64-bit product
// only carries them up). Not a hash alone; a term of a key that is mixed
// once as a whole (Mix64).
inline uint64_t MulFold(uint64_t x, uint64_t k) {
  const Uint128 product = static_cast<Uint128>(x) * k;
  return static_cast<uint64_t>(product >> 64) ^ static_cast<uint64_t>(product);
}

}  // namespace ax
