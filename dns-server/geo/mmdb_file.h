// One open MMDB file (libmaxminddb, memory-mapped): validated on open, looked
// up by IpAddress, values read by path without copying. Owns the MMDB_s; shared
// by every resolver built on it. Lookups and getters never throw and never
// allocate.
#pragma once

#include <maxminddb.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ax/ip.h"

namespace ax::dns {

// A lookup result. `entry` is only meaningful when `found`.
struct MmdbRecord {
  bool found = false;
  // Length of the database network holding the address, in the address's own
  // family (an IPv4 address in an IPv6 tree reports 0..32, not 96..128). Also
  // set when nothing was found: the empty network's length.
  int prefix_length = -1;
  MMDB_entry_s entry{};
};

// One network of the search tree, as ForEachNetwork visits it. Keys are
// IPv4 addresses, or the upper 64 bits of IPv6 ones: clients are classified
// no finer than a /64.
struct MmdbNetwork {
  uint64_t key = 0;       // first address (IPv6: its upper half)
  int prefix_length = 0;  // in the family: 0..32, or 0..64 for IPv6
  bool deeper = false;    // IPv6: this /64 holds longer networks, unvisited
  MmdbRecord record;      // found/entry; prefix_length as above
};

// Outcome of reading one value: kMissing covers a path absent from the record
// and a value of another type (a misconfigured field path); kCorrupt is a
// broken data section.
enum class MmdbField : uint8_t { kFound, kMissing, kCorrupt };

class MmdbFile {
 public:
  // Opens and validates `path`: libmaxminddb's own metadata checks, then sane
  // metadata (IP version, record size, node count, database type) and test
  // lookups that decode their records. With `copy_dir`, what is mapped is a
  // private copy made there (private_copy.h), safe against `path` being
  // rewritten in place. On failure returns null and sets `error` to a message
  // naming the file.
  static std::shared_ptr<const MmdbFile> Open(const std::string& path,
                                              std::string* error,
                                              const std::string& copy_dir = "");

  ~MmdbFile();
  MmdbFile(const MmdbFile&) = delete;
  MmdbFile& operator=(const MmdbFile&) = delete;

  const std::string& path() const { return path_; }
  std::string_view database_type() const {
    return mmdb_.metadata.database_type;
  }
  int ip_version() const { return mmdb_.metadata.ip_version; }
  uint64_t build_epoch() const { return mmdb_.metadata.build_epoch; }
  uint32_t node_count() const { return mmdb_.metadata.node_count; }

  // False only when libmaxminddb reported an error (corrupt tree, or an IPv6
  // address in an IPv4-only database); `record.found` says whether a record
  // exists.
  bool Lookup(const IpAddress& ip, MmdbRecord& record) const;

  // Visits every network of `family` in address order, empty ones included,
  // so that the keys partition the family's space; stops early when `visit`
  // returns false. False with `error` on a broken or abusively aliased tree.
  // Not for IPv6 on an IPv4 database.
  bool ForEachNetwork(IpFamily family,
                      const std::function<bool(const MmdbNetwork&)>& visit,
                      std::string* error) const;

  // Drops this process's mapping of the file's pages (they stay in the page
  // cache): after compiling, lookups touch few of them again, so they should
  // not count as resident memory. Contents are unaffected.
  void ReleasePages() const;

  // `path` is a null-terminated array of map keys and array indices, as
  // MMDB_aget_value takes it. Strings are views into the mapped file, valid
  // while this MmdbFile lives.
  MmdbField GetString(const MmdbRecord& record, const char* const* path,
                      std::string_view& out) const;
  // Accepts double and float values.
  MmdbField GetDouble(const MmdbRecord& record, const char* const* path,
                      double& out) const;
  // Accepts any integer type whose value fits in 32 unsigned bits.
  MmdbField GetUint32(const MmdbRecord& record, const char* const* path,
                      uint32_t& out) const;

 private:
  explicit MmdbFile(std::string path) : path_(std::move(path)) {}
  MmdbField Get(const MmdbRecord& record, const char* const* path,
                MMDB_entry_data_s& data) const;
  // Post-open checks libmaxminddb does not make; returns "" when sane.
  std::string Validate() const;
  class Walker;

  std::string path_;
  MMDB_s mmdb_{};
};

}  // namespace ax::dns
