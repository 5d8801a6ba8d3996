// IpdbFile::ForEachNetwork: a depth-first walk of an ipdb search tree (format
// in ipdb_file.h) that reports every leaf as a network, for compiling the
// file into range tables. Lookups live in ipdb_file.cc.
#include "geo/ipdb_file.h"

namespace ax::dns {

class IpdbFile::Walker {
 public:
  Walker(const IpdbFile& db, IpFamily family,
         const std::function<bool(const IpdbNetwork&)>& visit,
         std::string* error)
      : db_(db),
        key_bits_(family == IpFamily::kV4 ? 32 : 64),
        visit_(visit),
        error_(error),
        // A true tree has node_count + 1 leaves. Nodes may be shared (a
        // packer could alias 6to4 or Teredo to the IPv4 tree, as MMDBs do),
        // so allow some repetition, but not a file that aliases (or loops)
        // its way to billions of leaves.
        leaf_budget_(4 * (uint64_t{db.node_count_} + 1)) {}

  bool Run(IpFamily family) {
    const uint32_t start = family == IpFamily::kV4 ? db_.v4_start_ : 0;
    if (start >= db_.node_count_) return Leaf(start, 0, 0);
    return Walk(start, 0, 0);
  }

 private:
  // `node` covers the networks below prefix `key`/`depth`.
  bool Walk(uint32_t node, uint64_t key, int depth) {
    for (int side = 0; side < 2; ++side) {
      const uint32_t child = db_.Child(node, side);
      const int child_depth = depth + 1;
      const uint64_t child_key =
          key | (static_cast<uint64_t>(side) << (key_bits_ - child_depth));
      bool ok = true;
      if (child >= db_.node_count_) {
        ok = Leaf(child, child_key, child_depth);
      } else if (child_depth < key_bits_) {
        ok = Walk(child, child_key, child_depth);
      } else if (key_bits_ == 64) {
        IpdbNetwork network{.key = child_key, .prefix_length = 64};
        network.deeper = true;
        ok = Visit(network);
      } else {
        ok = Fail("search tree deeper than 32 bits under IPv4");
      }
      if (!ok) return false;
    }
    return true;
  }

  bool Leaf(uint32_t node, uint64_t key, int depth) {
    IpdbNetwork network{.key = key, .prefix_length = depth};
    network.record.prefix_length = depth;
    if (node > db_.node_count_) {
      if (const char* problem = db_.Resolve(node, network.record)) {
        return Fail("record under prefix length " + std::to_string(depth) +
                    " " + problem);
      }
    }
    return Visit(network);
  }

  bool Visit(const IpdbNetwork& network) {
    if (leaf_budget_-- == 0) {
      return Fail("search tree aliases too many subtrees (over " +
                  std::to_string(4 * (uint64_t{db_.node_count_} + 1)) +
                  " networks)");
    }
    if (visit_(network)) return true;
    stopped_ = true;
    return false;
  }

  bool Fail(std::string message) {
    if (error_ != nullptr && !stopped_) *error_ = std::move(message);
    return false;
  }

  const IpdbFile& db_;
  const int key_bits_;
  const std::function<bool(const IpdbNetwork&)>& visit_;
  std::string* error_;
  uint64_t leaf_budget_;
  bool stopped_ = false;  // by the visitor, which has its own error
};

bool IpdbFile::ForEachNetwork(
    IpFamily family, const std::function<bool(const IpdbNetwork&)>& visit,
    std::string* error) const {
  if (!Serves(family)) {
    if (error != nullptr) {
      *error = "geo database " + path_ + " holds no " +
               (family == IpFamily::kV4 ? "IPv4" : "IPv6") + " data";
    }
    return false;
  }
  std::string problem;
  Walker walker(*this, family, visit, &problem);
  if (walker.Run(family)) return true;
  if (error != nullptr && !problem.empty()) {
    *error = "geo database " + path_ + ": " + problem;
  }
  return false;
}

}  // namespace ax::dns
