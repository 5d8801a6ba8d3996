// IpdbFile::ForEachNetwork: a depth-first walk of an ipdb search tree (format
// in ipdb_file.h) that reports every leaf as a network, for compiling the
// file into range tables. Lookups live in ipdb_file.cc.
#include <array>

#include "geo/ipdb_file.h"
#include "geo/tree_walk.h"

namespace ax::dns {

class IpdbFile::Walker : public TreeWalk<Walker, uint32_t, IpdbNetwork> {
 public:
  Walker(const IpdbFile& db, IpFamily family,
         const std::function<bool(const IpdbNetwork&)>& visit,
         std::string* error)
      : TreeWalk(family, db.node_count_, visit, error), db_(db) {}

  bool Run(IpFamily family) {
    const uint32_t start = family == IpFamily::kV4 ? db_.v4_start_ : 0;
    if (start >= db_.node_count_) return Leaf(start, 0, 0);
    return Walk(start, 0, 0);
  }

  // TreeWalk's hooks: a child is a node index, below node_count a node.
  bool ReadChildren(uint32_t node, std::array<uint32_t, 2>& children) {
    children = {db_.Child(node, 0), db_.Child(node, 1)};
    return true;
  }
  bool IsNode(uint32_t child) const { return child < db_.node_count_; }
  static uint32_t NodeOf(uint32_t child) { return child; }
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

 private:
  const IpdbFile& db_;
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
