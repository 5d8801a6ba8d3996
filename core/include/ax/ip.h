// IP addresses and prefixes as plain values: parsing, formatting, masking,
// containment. Pure and allocation-free on the query path; no sockets or name
// resolution here.
#pragma once

#include <endian.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "ax/hash.h"

namespace ax {

enum class IpFamily : uint8_t { kV4 = 4, kV6 = 6 };

// An IPv4 or IPv6 address. IPv4 uses the first 4 bytes of `bytes`; the rest
// stay zero so that equality and hashing work on the whole array.
struct IpAddress {
  IpFamily family = IpFamily::kV4;
  std::array<uint8_t, 16> bytes{};

  int BitLength() const { return family == IpFamily::kV4 ? 32 : 128; }
  // Bit `i` counted from the most significant bit of the first byte.
  bool Bit(int i) const { return (bytes[i / 8] >> (7 - i % 8)) & 1; }
  bool operator==(const IpAddress&) const = default;
  auto operator<=>(const IpAddress&) const = default;
};

// A network prefix. `address` has every bit past `length` cleared.
struct IpPrefix {
  IpAddress address;
  int length = 0;

  bool Contains(const IpAddress& ip) const;
  bool operator==(const IpPrefix&) const = default;
  auto operator<=>(const IpPrefix&) const = default;
};

// Parses "192.0.2.1" or "2001:db8::1". Returns nullopt on anything else.
std::optional<IpAddress> ParseIp(std::string_view text);

// Parses "10.0.0.0/8" or "2001:db8::/32" strictly: the prefix length must fit
// the family and no bit past it may be set (a typo like 10.0.0.1/8 is an error,
// not a silent mask). On failure returns nullopt and, if `error` is given, says
// why.
std::optional<IpPrefix> ParsePrefix(std::string_view text,
                                    std::string* error = nullptr);

namespace ip_internal {

// The 16 octets as two big-endian words, bit 0 the top bit of hi: masking
// and hashing take two word operations each instead of a loop over octets.
struct Words {
  uint64_t hi = 0;
  uint64_t lo = 0;
};

inline Words ToWords(const IpAddress& ip) {
  uint64_t w[2];
  std::memcpy(w, ip.bytes.data(), sizeof(w));
  return {be64toh(w[0]), be64toh(w[1])};
}

// The first `length` bits of `w` (clamped to 0..128), the rest cleared.
inline Words KeepBits(Words w, int length) {
  auto top = [](int n) -> uint64_t {
    if (n <= 0) return 0;
    return n >= 64 ? ~uint64_t{0} : ~uint64_t{0} << (64 - n);
  };
  return {w.hi & top(length), w.lo & top(length - 64)};
}

// The words of the prefix Mask(ip, length).
inline Words PrefixWords(const IpAddress& ip, int length) {
  const Words w = ToWords(ip);
  return length < ip.BitLength() ? KeepBits(w, length) : w;
}

}  // namespace ip_internal

// Clears every bit past `length` (clamped to the family's bit length).
// Inline, as PrefixHash: the DNS workers mask and hash every query's client,
// and a call returns the address through memory that is read back wider
// than it was written (a stalled store-to-load forward).
inline IpAddress Mask(const IpAddress& ip, int length) {
  if (length >= ip.BitLength()) return ip;
  const ip_internal::Words kept =
      ip_internal::KeepBits(ip_internal::ToWords(ip), length);
  IpAddress out;
  out.family = ip.family;
  const uint64_t big_endian[2] = {htobe64(kept.hi), htobe64(kept.lo)};
  std::memcpy(out.bytes.data(), big_endian, sizeof(big_endian));
  return out;
}

// A stable hash (hash.h) of the prefix Mask(ip, length) and its family: the
// key of a client subnet (canary cohorts).
inline uint64_t PrefixHash(const IpAddress& ip, int length) {
  const ip_internal::Words w = ip_internal::PrefixWords(ip, length);
  return Mix64(Mix64(w.hi ^ static_cast<uint64_t>(ip.family)) ^ w.lo);
}
// The prefix Mask(ip, length) and its family as one word: equal prefixes give
// equal words, distinct ones rarely collide, but the bits are not mixed. For
// a term of a key that is spread (MulFold) and mixed once as a whole:
// rate-limit buckets, where PrefixHash's two Mix64 per term cost more.
inline uint64_t PrefixWord(const IpAddress& ip, int length) {
  const ip_internal::Words w = ip_internal::PrefixWords(ip, length);
  return w.hi ^ MulFold(w.lo ^ static_cast<uint64_t>(ip.family),
                        0x9e3779b97f4a7c15ULL);
}
// The last address of `prefix` (every bit past its length set).
IpAddress LastAddress(const IpPrefix& prefix);

std::string FormatIp(const IpAddress& ip);
std::string FormatPrefix(const IpPrefix& prefix);

}  // namespace ax
