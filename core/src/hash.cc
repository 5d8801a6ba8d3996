// FNV-1a 64 and the splitmix64 finaliser; constants are the published ones, so
// hashes stored in snapshots stay comparable across releases.
#include "ax/hash.h"

namespace ax {

uint64_t Fnv1a64(std::string_view data, uint64_t seed) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t h = seed;
  for (const char c : data) {
    h ^= static_cast<unsigned char>(c);
    h *= kPrime;
  }
  return h;
}

uint64_t Mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace ax
