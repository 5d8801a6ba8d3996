// Longest-prefix-match table from IPv4/IPv6 prefixes to small integer values,
// plus the ECS scope depth of each answer. Built once, then queried on the DNS
// hot path: queries never allocate. Knows nothing about regions or DNS;
// classify.h gives values meaning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ax/ip.h"

namespace ax {

// A path-compressed binary trie (one per family) over 128-bit keys held in two
// words, so each step is a XOR and a count-leading-zeros. Nodes live in one
// vector and refer to each other by index.
class PrefixTable {
 public:
  struct Match {
    uint32_t value = 0;
    int prefix_length = 0;
    bool operator==(const Match&) const = default;
  };

  struct Result {
    std::optional<Match> match;  // the longest prefix containing the address
    int covering_depth = 0;      // see CoveringDepth
  };

  // Adds `prefix` -> `value`. A prefix already present keeps its first value
  // and the call returns false, so callers can report the duplicate. Bits past
  // the prefix length are ignored.
  bool Insert(const IpPrefix& prefix, uint32_t value);

  // The value of the longest prefix containing `ip`, or nullopt.
  std::optional<Match> Lookup(const IpAddress& ip) const {
    return Query(ip).match;
  }

  // The smallest L such that every address of ip's family that shares ip's
  // first L bits gets the same Lookup result as ip (the same prefix, or no
  // match). Mask(ip, L)/L is the widest block an answer derived from this
  // lookup holds for: the ECS SCOPE PREFIX-LENGTH of RFC 7871 §7.2.1. Two
  // different prefixes count as different results even when they carry the same
  // value, which errs towards longer (safe) scopes.
  //
  // Equivalently L = max(m, d + 1 for every table prefix P not containing ip),
  // where m is the matched length (0 for no match) and d is the number of
  // leading bits P shares with ip: a block of d + 1 bits excludes P, and any
  // shorter block holds addresses in P, which match P or something inside it.
  // With {10.0.0.0/8, 10.1.0.0/16}:
  //   10.1.2.3 -> 16  (matches the /16; nothing lies inside it)
  //   10.2.3.4 -> 15  (matches the /8; 10.1.0.0/16 shares 14 bits with it, so
  //                    10.2.0.0/15 is all /8, but 10.0.0.0/14 contains the /16)
  //   11.0.0.1 -> 8   (no match; 10.0.0.0/8 shares 7 bits, so 11.0.0.0/8 is
  //                    all misses)
  // A table holding only 0.0.0.0/0, or no prefix of ip's family, gives 0.
  int CoveringDepth(const IpAddress& ip) const {
    return Query(ip).covering_depth;
  }

  // Lookup and CoveringDepth in one walk. Inline for the common case of a
  // table holding no prefix of ip's family (most snapshots declare no CIDR):
  // the empty result is built in the caller, not returned through memory,
  // whose read-back stalled on every query.
  Result Query(const IpAddress& ip) const {
    const uint32_t root = roots_[FamilySlot(ip.family)];
    if (root == kNone) return {};
    return Walk(ip, root);
  }

  // Number of distinct prefixes stored.
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Address bits, most significant first: bit 0 is the top bit of `hi`. IPv4
  // uses the top 32 bits of `hi`.
  struct Key {
    uint64_t hi = 0;
    uint64_t lo = 0;
  };

  // A trie node is the prefix key/length; it holds a value when that prefix was
  // inserted, otherwise it only branches. child[b] continues with bit `length`
  // == b.
  struct Node {
    Key key;
    uint32_t child[2] = {kNone, kNone};
    uint32_t value = 0;
    uint8_t length = 0;
    bool has_value = false;
  };

  static Key ToKey(const IpAddress& ip);
  static Key MaskKey(const Key& key, int length);
  static int KeyBit(const Key& key, int i);
  static int CommonPrefixLength(const Key& a, const Key& b);
  static int FamilySlot(IpFamily family) {
    return family == IpFamily::kV4 ? 0 : 1;
  }
  uint32_t NewNode(const Key& key, int length, std::optional<uint32_t> value);
  Result Walk(const IpAddress& ip, uint32_t root) const;

  uint32_t roots_[2] = {kNone, kNone};  // per FamilySlot
  std::vector<Node> nodes_;
  size_t size_ = 0;
};

}  // namespace ax
