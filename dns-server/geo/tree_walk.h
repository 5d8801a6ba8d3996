// TreeWalk: the depth-first walk of a binary search tree over address bits
// (MMDB's and ipdb's), reporting every leaf as a network keyed like the
// compiled tables (family_tables.h: IPv4 addresses, IPv6 by their upper 64
// bits). What is shared lives here: the keys and depths, IPv6 /64s that hold
// longer networks, the budget against trees that alias or loop their way to
// billions of leaves, and who reports an error. Each format supplies how a
// node's two children are read and what a leaf holds; nothing here knows a
// file format.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "ax/ip.h"

namespace ax::dns {

// Format is the derived walker (CRTP). It provides:
//   bool ReadChildren(uint32_t node, std::array<Child, 2>& children);
//   bool IsNode(const Child& c);  uint32_t NodeOf(const Child& c);
//   bool Leaf(const Child& c, uint64_t key, int depth);  // calls Visit
// Network has `key`, `prefix_length` and `deeper` (MmdbNetwork, IpdbNetwork).
template <typename Format, typename Child, typename Network>
class TreeWalk {
 public:
  TreeWalk(IpFamily family, uint64_t node_count,
           const std::function<bool(const Network&)>& visit, std::string* error)
      : key_bits_(family == IpFamily::kV4 ? 32 : 64),
        visit_(visit),
        error_(error),
        // A true tree has node_count + 1 leaves. Real files alias a few
        // subtrees (IPv4-mapped, 6to4, Teredo all point at the IPv4 tree),
        // so allow some repetition but not billions of leaves.
        leaf_budget_(4 * (node_count + 1)),
        limit_(leaf_budget_) {}

 protected:
  // `node` covers the networks below prefix `key`/`depth`.
  bool Walk(uint32_t node, uint64_t key, int depth) {
    std::array<Child, 2> children;
    if (!self().ReadChildren(node, children)) return false;
    for (int side = 0; side < 2; ++side) {
      const int child_depth = depth + 1;
      const uint64_t child_key =
          key | (static_cast<uint64_t>(side) << (key_bits_ - child_depth));
      bool ok = true;
      if (!self().IsNode(children[side])) {
        ok = self().Leaf(children[side], child_key, child_depth);
      } else if (child_depth < key_bits_) {
        ok = Walk(self().NodeOf(children[side]), child_key, child_depth);
      } else if (key_bits_ == 64) {
        // Clients are classified no finer than a /64: what lies below is
        // read from the file when asked (FamilyTables::kDeeper).
        Network network{.key = child_key, .prefix_length = 64};
        network.deeper = true;
        ok = Visit(network);
      } else {
        ok = Fail("search tree deeper than 32 bits under IPv4");
      }
      if (!ok) return false;
    }
    return true;
  }

  bool Visit(const Network& network) {
    if (leaf_budget_-- == 0) {
      return Fail("search tree aliases too many subtrees (over " +
                  std::to_string(limit_) + " networks)");
    }
    if (visit_(network)) return true;
    stopped_ = true;
    return false;
  }

  // False, keeping the first problem; a stop by the visitor (which has its
  // own error) is not overwritten.
  bool Fail(std::string message) {
    if (error_ != nullptr && !stopped_) *error_ = std::move(message);
    return false;
  }

 private:
  Format& self() { return static_cast<Format&>(*this); }

  const int key_bits_;
  const std::function<bool(const Network&)>& visit_;
  std::string* error_;
  uint64_t leaf_budget_;
  const uint64_t limit_;
  bool stopped_ = false;
};

}  // namespace ax::dns
