// The path-compressed binary trie behind PrefixTable: insertion (build time,
// may allocate) and the single query walk that yields both the longest match
// and the covering depth (hot path, must not allocate).
#include "ax/prefix_table.h"

#include <algorithm>
#include <bit>

namespace ax {

PrefixTable::Key PrefixTable::ToKey(const IpAddress& ip) {
  Key key;
  for (int i = 0; i < 8; ++i) {
    key.hi = (key.hi << 8) | ip.bytes[i];
    key.lo = (key.lo << 8) | ip.bytes[8 + i];
  }
  return key;
}

PrefixTable::Key PrefixTable::MaskKey(const Key& key, int length) {
  // The mask keeping the first n bits of one 64-bit word, n clamped to [0, 64].
  auto keep = [](int n) -> uint64_t {
    if (n <= 0) return 0;
    return n >= 64 ? ~uint64_t{0} : ~uint64_t{0} << (64 - n);
  };
  return {key.hi & keep(length), key.lo & keep(length - 64)};
}

int PrefixTable::KeyBit(const Key& key, int i) {
  return i < 64 ? (key.hi >> (63 - i)) & 1 : (key.lo >> (127 - i)) & 1;
}

int PrefixTable::CommonPrefixLength(const Key& a, const Key& b) {
  if (const uint64_t x = a.hi ^ b.hi) return std::countl_zero(x);
  if (const uint64_t x = a.lo ^ b.lo) return 64 + std::countl_zero(x);
  return 128;
}

uint32_t PrefixTable::NewNode(const Key& key, int length,
                              std::optional<uint32_t> value) {
  Node node;
  node.key = key;
  node.length = static_cast<uint8_t>(length);
  node.has_value = value.has_value();
  node.value = value.value_or(0);
  nodes_.push_back(node);
  return static_cast<uint32_t>(nodes_.size() - 1);
}

bool PrefixTable::Insert(const IpPrefix& prefix, uint32_t value) {
  const int length = std::clamp(prefix.length, 0, prefix.address.BitLength());
  const Key key = MaskKey(ToKey(prefix.address), length);
  // The slot being descended into: a family root, or child[side] of `parent`.
  // Held as indices because NewNode may reallocate `nodes_`.
  uint32_t parent = kNone;
  int side = 0;
  auto slot = [&]() -> uint32_t& {
    return parent == kNone ? roots_[FamilySlot(prefix.address.family)]
                           : nodes_[parent].child[side];
  };
  while (true) {
    const uint32_t current = slot();
    if (current == kNone) {
      const uint32_t leaf = NewNode(key, length, value);
      slot() = leaf;
      ++size_;
      return true;
    }
    Node& node = nodes_[current];
    const int common =
        std::min({CommonPrefixLength(key, node.key), length, int{node.length}});
    if (common == node.length) {
      if (length > node.length) {  // the new prefix lies below this node
        parent = current;
        side = KeyBit(key, node.length);
        continue;
      }
      if (node.has_value) return false;
      node.has_value = true;
      node.value = value;
      ++size_;
      return true;
    }
    // The paths part (or the new prefix ends) above `node`: put a node at
    // `common` bits between its parent and it. That node is the new prefix
    // itself when the new prefix ends there, else a pure branch with the new
    // prefix as a leaf.
    const int node_side = KeyBit(node.key, common);
    const bool new_is_above = common == length;
    const uint32_t above =
        new_is_above ? NewNode(key, length, value)
                     : NewNode(MaskKey(key, common), common, std::nullopt);
    nodes_[above].child[node_side] = current;
    if (!new_is_above) {
      const uint32_t leaf = NewNode(key, length, value);
      nodes_[above].child[1 - node_side] = leaf;
    }
    slot() = above;
    ++size_;
    return true;
  }
}

PrefixTable::Result PrefixTable::Walk(const IpAddress& ip,
                                      uint32_t root) const {
  Result result;
  const Key key = ToKey(ip);
  const int bits = ip.BitLength();
  // Depth only grows along the walk, but max() keeps each step's reason local.
  for (uint32_t n = root; n != kNone;) {
    const Node& node = nodes_[n];
    const int common = CommonPrefixLength(key, node.key);
    if (common < node.length) {
      // Every prefix under `node` parts from ip at bit `common`.
      result.covering_depth = std::max(result.covering_depth, common + 1);
      break;
    }
    if (node.has_value) {
      result.match = Match{node.value, node.length};
      result.covering_depth = std::max(result.covering_depth, int{node.length});
    }
    if (node.length >= bits) break;
    const int bit = KeyBit(key, node.length);
    if (node.child[1 - bit] != kNone) {
      // Prefixes on the other branch part from ip at bit `node.length`.
      result.covering_depth =
          std::max(result.covering_depth, int{node.length} + 1);
    }
    n = node.child[bit];
  }
  return result;
}

}  // namespace ax
