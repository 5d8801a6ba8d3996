// MmdbFile::ForEachNetwork: a depth-first walk of the MMDB search tree
// (https://maxmind.github.io/MaxMind-DB/, "Search Tree Section") that reports
// every leaf as a network, for compiling the database into range tables; and
// ReleasePages. Lookups live in mmdb_file.cc.
#include <sys/mman.h>

#include "geo/mmdb_file.h"

namespace ax::dns {

class MmdbFile::Walker {
 public:
  Walker(const MMDB_s& mmdb, IpFamily family,
         const std::function<bool(const MmdbNetwork&)>& visit,
         std::string* error)
      : mmdb_(mmdb),
        key_bits_(family == IpFamily::kV4 ? 32 : 64),
        visit_(visit),
        error_(error),
        // A true tree has node_count + 1 leaves. Real databases alias a few
        // subtrees (IPv4-mapped, 6to4, Teredo all point at the IPv4 tree),
        // so allow some repetition but not a file that aliases its way to
        // billions of leaves.
        leaf_budget_(4 * (uint64_t{mmdb.metadata.node_count} + 1)) {}

  bool Run(IpFamily family) {
    uint32_t node = 0;
    if (family == IpFamily::kV4 && mmdb_.metadata.ip_version == 6) {
      // IPv4 addresses live under ::/96 of an IPv6 tree.
      for (int depth = 0; depth < 96; ++depth) {
        MMDB_search_node_s search{};
        if (!Read(node, search)) return false;
        if (search.left_record_type != MMDB_RECORD_TYPE_SEARCH_NODE) {
          // A leaf above /96 covers all of IPv4.
          return Leaf(search.left_record_type, search.left_record_entry, 0, 0);
        }
        node = static_cast<uint32_t>(search.left_record);
      }
    }
    return Walk(node, 0, 0);
  }

 private:
  bool Read(uint32_t node, MMDB_search_node_s& search) {
    const int status = MMDB_read_node(&mmdb_, node, &search);
    if (status == MMDB_SUCCESS) return true;
    return Fail("search tree node " + std::to_string(node) + ": " +
                MMDB_strerror(status));
  }

  // `node` covers the networks below prefix `key`/`depth`.
  bool Walk(uint32_t node, uint64_t key, int depth) {
    MMDB_search_node_s search{};
    if (!Read(node, search)) return false;
    const uint8_t types[2] = {search.left_record_type,
                              search.right_record_type};
    const uint64_t records[2] = {search.left_record, search.right_record};
    const MMDB_entry_s entries[2] = {search.left_record_entry,
                                     search.right_record_entry};
    for (int side = 0; side < 2; ++side) {
      const int child_depth = depth + 1;
      const uint64_t child_key =
          key | (static_cast<uint64_t>(side) << (key_bits_ - child_depth));
      bool ok = true;
      if (types[side] != MMDB_RECORD_TYPE_SEARCH_NODE) {
        ok = Leaf(types[side], entries[side], child_key, child_depth);
      } else if (child_depth < key_bits_) {
        ok = Walk(static_cast<uint32_t>(records[side]), child_key, child_depth);
      } else if (key_bits_ == 64) {
        MmdbNetwork network{.key = child_key, .prefix_length = 64};
        network.deeper = true;
        ok = Visit(network);
      } else {
        ok = Fail("search tree deeper than 32 bits under IPv4");
      }
      if (!ok) return false;
    }
    return true;
  }

  bool Leaf(uint8_t type, const MMDB_entry_s& entry, uint64_t key, int depth) {
    MmdbNetwork network{.key = key, .prefix_length = depth};
    network.record.prefix_length = depth;
    switch (type) {
      case MMDB_RECORD_TYPE_EMPTY:
        break;
      case MMDB_RECORD_TYPE_DATA:
        network.record.found = true;
        network.record.entry = entry;
        break;
      default:
        return Fail("invalid search tree record under prefix length " +
                    std::to_string(depth));
    }
    return Visit(network);
  }

  bool Visit(const MmdbNetwork& network) {
    if (leaf_budget_-- == 0) {
      return Fail(
          "search tree aliases too many subtrees (over " +
          std::to_string(4 * (uint64_t{mmdb_.metadata.node_count} + 1)) +
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

  const MMDB_s& mmdb_;
  const int key_bits_;
  const std::function<bool(const MmdbNetwork&)>& visit_;
  std::string* error_;
  uint64_t leaf_budget_;
  bool stopped_ = false;  // by the visitor, which has its own error
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
