// MmdbFile::ForEachNetwork: a depth-first walk of the MMDB search tree
// (https://maxmind.github.io/MaxMind-DB/, "Search Tree Section") that reports
// every leaf as a network, for compiling the database into range tables; and
// ReleasePages. Lookups live in mmdb_file.cc.
#include <sys/mman.h>

#include <array>

#include "geo/mmdb_file.h"
#include "geo/tree_walk.h"

namespace ax::dns {

// One child of a search node: another node, or a leaf (empty or data).
struct MmdbChild {
  uint8_t type = MMDB_RECORD_TYPE_EMPTY;
  uint64_t record = 0;
  MMDB_entry_s entry{};
};

class MmdbFile::Walker : public TreeWalk<Walker, MmdbChild, MmdbNetwork> {
 public:
  Walker(const MMDB_s& mmdb, IpFamily family,
         const std::function<bool(const MmdbNetwork&)>& visit,
         std::string* error)
      : TreeWalk(family, mmdb.metadata.node_count, visit, error), mmdb_(mmdb) {}

  bool Run(IpFamily family) {
    uint32_t node = 0;
    if (family == IpFamily::kV4 && mmdb_.metadata.ip_version == 6) {
      // IPv4 addresses live under ::/96 of an IPv6 tree.
      for (int depth = 0; depth < 96; ++depth) {
        std::array<MmdbChild, 2> children;
        if (!ReadChildren(node, children)) return false;
        // A leaf above /96 covers all of IPv4.
        if (!IsNode(children[0])) return Leaf(children[0], 0, 0);
        node = NodeOf(children[0]);
      }
    }
    return Walk(node, 0, 0);
  }

  // TreeWalk's hooks.
  bool ReadChildren(uint32_t node, std::array<MmdbChild, 2>& children) {
    MMDB_search_node_s search{};
    const int status = MMDB_read_node(&mmdb_, node, &search);
    if (status != MMDB_SUCCESS) {
      return Fail("search tree node " + std::to_string(node) + ": " +
                  MMDB_strerror(status));
    }
    children = {MmdbChild{search.left_record_type, search.left_record,
                          search.left_record_entry},
                MmdbChild{search.right_record_type, search.right_record,
                          search.right_record_entry}};
    return true;
  }
  static bool IsNode(const MmdbChild& c) {
    return c.type == MMDB_RECORD_TYPE_SEARCH_NODE;
  }
  static uint32_t NodeOf(const MmdbChild& c) {
    return static_cast<uint32_t>(c.record);
  }
  bool Leaf(const MmdbChild& c, uint64_t key, int depth) {
    MmdbNetwork network{.key = key, .prefix_length = depth};
    network.record.prefix_length = depth;
    switch (c.type) {
      case MMDB_RECORD_TYPE_EMPTY:
        break;
      case MMDB_RECORD_TYPE_DATA:
        network.record.found = true;
        network.record.entry = c.entry;
        break;
      default:
        return Fail("invalid search tree record under prefix length " +
                    std::to_string(depth));
    }
    return Visit(network);
  }

 private:
  const MMDB_s& mmdb_;
};

bool MmdbFile::ForEachNetwork(
    IpFamily family, const std::function<bool(const MmdbNetwork&)>& visit,
    std::string* error) const {
  if (family == IpFamily::kV6 && mmdb_.metadata.ip_version != 6) {
    if (error != nullptr) *error = "geo database " + path_ + " is IPv4-only";
    return false;
  }
  std::string problem;
  Walker walker(mmdb_, family, visit, &problem);
  if (walker.Run(family)) return true;
  if (error != nullptr && !problem.empty()) {
    *error = "geo database " + path_ + ": " + problem;
  }
  return false;
}

void MmdbFile::ReleasePages() const {
  if (mmdb_.file_content == nullptr) return;
  // The mapping is private and read-only: dropping it only forgets pages.
  ::madvise(const_cast<uint8_t*>(mmdb_.file_content),
            static_cast<size_t>(mmdb_.file_size), MADV_DONTNEED);
}

}  // namespace ax::dns
